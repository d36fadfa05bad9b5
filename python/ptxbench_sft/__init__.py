"""PTXBench SFT pipeline: build prompt-completion training data from `ptxbench export` files.

Nothing heavy is imported here; the training extras (torch, transformers, trl, ...) are only
needed by the training code, never by the data builder.
"""

__version__ = "0.1.0"
