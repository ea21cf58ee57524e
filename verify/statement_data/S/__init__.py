"""Statement objects of paper S, one module per part of the paper (the folders of ``proofs_checks/S/``)."""
