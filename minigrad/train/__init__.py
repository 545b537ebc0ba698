"""Training tiny transformers: tasks, the model, the trainer, the run folder.

The command line (``python -m minigrad train``) is a thin layer over this package;
``examples/train_tiny_transformer.py`` shows the same training written directly
against the library.
"""

from minigrad.train.config import ConfigError, TrainConfig
from minigrad.train.model import TinyTransformer
from minigrad.train.tasks import TaskError, make_task
from minigrad.train.trainer import Trainer

__all__ = ["ConfigError", "TaskError", "TinyTransformer", "TrainConfig", "Trainer", "make_task"]
