r"""Residual convolutional networks for paper N's weight-decay experiments (Fig. 6): the architecture the paper
trains (ResNet18) and a small residual network with the same structure that trains on two CPU cores.

Both are He et al. (2016) residual networks of *basic blocks* (two 3x3 convolutions with batchnorm, an identity
shortcut, or a 1x1 convolution with batchnorm where the shape changes), with the 3x3 stride-1 stem that
ResNet18 is given for 28x28 / 32x32 images (no 7x7 stride-2 stem, no max-pool), global average pooling and a linear
classifier:

* ``resnet18``: 4 stages of 2 blocks, widths 64, 128, 256, 512, strides 1, 2, 2, 2 (11,172,810 parameters for
  one input channel and K = 10): the paper's network, meant for a GPU (``device="cuda"``);
* ``small-resnet``: 3 stages of 1 block, widths 8, 16, 32, strides 1, 2, 2 (19,810 parameters for one input
  channel and K = 10): a residual network sized for the slow tier on a 2-core CPU.

The features whose NC metrics are measured: the deepest, the pooled output of the last stage (the classifier's
input); the intermediate, the pooled output of the stage before it (the paper's "ResBlock 3 of 4" for ResNet18).
torchvision is not a dependency of the ``torch`` extra, and its ``resnet18`` has the ImageNet stem; these are
composed from ``torch.nn`` layers.

>>> import torch
>>> net = residual_net("small-resnet", in_channels=1, K=10)
>>> feats, logits = net(torch.zeros(2, 1, 8, 8))
>>> [tuple(f.shape) for f in feats], tuple(logits.shape)
([(2, 16), (2, 32)], (2, 10))
"""

from __future__ import annotations

import torch
from torch import nn

from .._validate import VerifyInputError, verify_choice, verify_int

__all__ = ["CONV_ARCHITECTURES", "BasicBlock", "ResidualNet", "residual_net", "parameter_groups"]

#: architecture -> (widths per stage, blocks per stage, strides per stage)
CONV_ARCHITECTURES = {
    "resnet18": ((64, 128, 256, 512), (2, 2, 2, 2), (1, 2, 2, 2)),
    "small-resnet": ((8, 16, 32), (1, 1, 1), (1, 2, 2)),
}


class BasicBlock(nn.Module):
    r"""He et al.'s basic block: :math:`\mathrm{relu}(\mathrm{bn}(\mathrm{conv}(\mathrm{relu}(\mathrm{bn}(
    \mathrm{conv}(x))))) + s(x))`, :math:`s` the identity or a strided 1x1 convolution with batchnorm."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity() if stride == 1 and cin == cout else nn.Sequential(
            nn.Conv2d(cin, cout, 1, stride=stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        h = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(h)) + self.shortcut(x))


class ResidualNet(nn.Module):
    """A residual network of :class:`BasicBlock` stages; ``forward`` returns the pooled features of the last two
    stages (intermediate, deepest) and the logits."""

    def __init__(self, in_channels: int, widths, blocks, strides, K: int, bias_last: bool = True):
        super().__init__()
        if not (len(widths) == len(blocks) == len(strides) >= 2):
            raise VerifyInputError("Arguments 'widths', 'blocks' and 'strides' must have one entry per stage, at "
                                   "least 2 stages.")
        self.stem = nn.Sequential(nn.Conv2d(in_channels, widths[0], 3, padding=1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.ReLU())
        stages, cin = [], widths[0]
        for w, b, s in zip(widths, blocks, strides):
            stages.append(nn.Sequential(*[BasicBlock(cin if i == 0 else w, w, s if i == 0 else 1) for i in range(b)]))
            cin = w
        self.stages = nn.ModuleList(stages)
        self.fc = nn.Linear(widths[-1], K, bias=bias_last)

    def forward(self, x):
        h = self.stem(x)
        pooled = []
        for i, stage in enumerate(self.stages):
            h = stage(h)
            if i >= len(self.stages) - 2:
                pooled.append(h.mean(dim=(2, 3)))   # global average pooling
        return pooled, self.fc(pooled[-1])


def residual_net(arch: str, in_channels: int, K: int, bias_last: bool = True) -> ResidualNet:
    """The network ``arch`` of :data:`CONV_ARCHITECTURES`, initialised by torch's defaults from its global generator
    (seed it first: the settings of one seed share their initialisation)."""
    verify_choice(arch, "arch", tuple(CONV_ARCHITECTURES))
    verify_int(in_channels, "in_channels", minimum=1)
    verify_int(K, "K", minimum=2)
    return ResidualNet(in_channels, *CONV_ARCHITECTURES[arch], K=K, bias_last=bias_last)


def parameter_groups(net: ResidualNet) -> tuple[list, list]:
    """The feature-mapping parameters (everything below the classifier: convolutions and batchnorm) and the last
    layer's (the classifier's weight and bias): the two groups whose weight decays Fig. 6 and Table 1 vary."""
    last = list(net.fc.parameters())
    ids = {id(p) for p in last}
    return [p for p in net.parameters() if id(p) not in ids], last
