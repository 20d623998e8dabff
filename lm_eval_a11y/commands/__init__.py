"""Sub-commands of ``a11y-eval``; each module exposes ``register(subparsers)``."""
