"""Statement objects of paper N, one module per part of the paper (the folders of ``proofs_checks/N/``)."""
