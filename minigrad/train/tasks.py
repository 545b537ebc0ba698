"""Built-in training tasks: generated from a seed, nothing to download.

Every task turns examples into token sequences for a decoder-only (causal) language
model, which learns to predict each next token.

Algorithmic tasks (exact-match accuracy): a prompt, then the answer. Only the answer
tokens are scored (the prompt's targets are ``IGNORE``), and an example counts as
correct when every answer token is the model's top choice given the true prefix,
which is the same as greedy decoding getting the whole answer right.

- ``reverse``: ``3 1 4 1 > 1 4 1 3``
- ``sort``:    ``3 1 4 1 > 1 1 3 4``
- ``copy``:    ``3 1 4 1 > 3 1 4 1``
- ``add``:     ``0 4 7 + 0 8 5 = 2 3 1 0``: two ``length``-digit numbers, and their sum
  written least-significant digit first (47 + 85 = 132 -> ``2 3 1 0``), the order in
  which a person adds with carries. ``decode_answer`` turns it back into ``132``.

The text task (``TextTask``): a character-level language model on any UTF-8 file,
evaluated by held-out loss and bits per character.

Held-out examples are drawn first, from their own random stream, and training never
samples one of them, so the accuracy is measured on examples the model never saw.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

#: Target value for positions that are not scored (``F.cross_entropy``'s ignore_index).
IGNORE = -100


class TaskError(ValueError):
    """A task cannot be built from the options given (the CLI reports it without a traceback)."""


# ---------------------------------------------------------------------- algorithmic tasks
class AlgorithmicTask:
    """Base of the exact-match tasks: a prompt of digits, a separator, an answer."""

    name = ""
    description = ""
    kind = "algorithmic"
    digits = "0123456789"

    def __init__(self, length: int, seed: int, n_heldout: int = 1000):
        if length < 1:
            raise TaskError(f"{self.name}: length must be at least 1, got {length}")
        self.length = length
        self.itos = list(self.digits) + list(self.extra_tokens())
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.vocab_size = len(self.itos)
        self.prompt_len, self.answer_len = self.layout()
        self.seq_len = self.prompt_len + self.answer_len - 1  # the model never reads the last token
        # Held-out set first, from its own stream; training rejects its examples.
        held_rng = np.random.default_rng([seed, 1])
        n_possible = self.n_possible()
        n_heldout = min(n_heldout, max(1, n_possible // 5))
        self.heldout = self._unique(held_rng, n_heldout)
        self._heldout_keys = {row.tobytes() for row in self.heldout}
        if n_possible - len(self._heldout_keys) < 1:
            raise TaskError(f"{self.name}: length {length} leaves no examples to train on")

    # --- what a subclass defines -------------------------------------------------------
    def extra_tokens(self) -> tuple:
        return (">",)

    def layout(self) -> tuple[int, int]:
        """(prompt length including the separator, answer length)."""
        return self.length + 1, self.length

    def n_possible(self) -> int:
        return 10**self.length

    def draw(self, rng: np.random.Generator, n: int) -> np.ndarray:
        """``n`` random full sequences (prompt + answer), shape (n, prompt_len + answer_len)."""
        x = rng.integers(0, 10, size=(n, self.length))
        sep = np.full((n, 1), self.stoi[">"])
        return np.concatenate([x, sep, self.answer(x)], axis=1)

    def answer(self, x: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # --- shared machinery --------------------------------------------------------------
    def _unique(self, rng: np.random.Generator, n: int) -> np.ndarray:
        seqs, seen = [], set()
        while len(seqs) < n:
            for row in self.draw(rng, 2 * n):
                key = row.tobytes()
                if key not in seen:
                    seen.add(key)
                    seqs.append(row)
                    if len(seqs) == n:
                        break
        return np.stack(seqs)

    def sample(self, rng: np.random.Generator, batch_size: int) -> np.ndarray:
        """A training batch of full sequences, none of them held out."""
        out = self.draw(rng, batch_size)
        for i in range(batch_size):
            while out[i].tobytes() in self._heldout_keys:
                out[i] = self.draw(rng, 1)[0]
        return out

    def inputs_targets(self, seqs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Model inputs (all but the last token) and targets (the next token, answer only)."""
        inputs = seqs[:, :-1]
        targets = seqs[:, 1:].copy()
        targets[:, : self.prompt_len - 1] = IGNORE
        return inputs.astype(np.int64), targets.astype(np.int64)

    def batch(self, rng: np.random.Generator, batch_size: int):
        return self.inputs_targets(self.sample(rng, batch_size))

    def encode_prompt(self, text: str) -> np.ndarray:
        """``"3 1 4 1"`` (spaces optional) -> prompt tokens including the separator."""
        raise NotImplementedError

    def decode_answer(self, tokens) -> str:
        return " ".join(self.itos[int(t)] for t in tokens)

    def format_example(self, seq: np.ndarray) -> str:
        prompt = " ".join(self.itos[int(t)] for t in seq[: self.prompt_len])
        return f"{prompt} {self.decode_answer(seq[self.prompt_len :])}"

    def _digits_from(self, text: str, count: int, what: str) -> list[int]:
        digits = [c for c in text if not c.isspace()]
        if len(digits) != count or not all(c in "0123456789" for c in digits):
            raise TaskError(f"{self.name}: {what} must be {count} digits (0-9), got {text!r}")
        return [int(c) for c in digits]


class ReverseTask(AlgorithmicTask):
    name = "reverse"
    description = "reverse a sequence of digits"

    def answer(self, x):
        return x[:, ::-1]

    def encode_prompt(self, text):
        return np.array(self._digits_from(text, self.length, "the input") + [self.stoi[">"]])


class SortTask(ReverseTask):
    name = "sort"
    description = "sort a sequence of digits in ascending order"

    def answer(self, x):
        return np.sort(x, axis=1)


class CopyTask(ReverseTask):
    name = "copy"
    description = "copy a sequence of digits"

    def answer(self, x):
        return x.copy()


class AddTask(AlgorithmicTask):
    name = "add"
    description = "add two multi-digit numbers (answer written least-significant digit first)"

    def extra_tokens(self):
        return ("+", "=")

    def layout(self):
        return 2 * self.length + 2, self.length + 1

    def n_possible(self):
        return 10 ** (2 * self.length)

    def draw(self, rng, n):
        a = rng.integers(0, 10, size=(n, self.length))
        b = rng.integers(0, 10, size=(n, self.length))
        plus = np.full((n, 1), self.stoi["+"])
        eq = np.full((n, 1), self.stoi["="])
        return np.concatenate([a, plus, b, eq, self._sum_digits(a, b)], axis=1)

    def _sum_digits(self, a, b):
        """Column addition with carries, least-significant digit first (any length: the
        numbers themselves are never formed, so nothing overflows int64)."""
        out, carry = [], np.zeros(len(a), dtype=np.int64)
        for k in range(self.length):  # column k is the digit of 10^k
            column = a[:, self.length - 1 - k] + b[:, self.length - 1 - k] + carry
            out.append(column % 10)
            carry = column // 10
        out.append(carry)
        return np.stack(out, axis=1)

    def encode_prompt(self, text):
        parts = text.replace("=", "").split("+")
        if len(parts) != 2:
            raise TaskError(f"add: the input must look like '047+085' or '47 + 85', got {text!r}")
        nums = []
        for part in parts:
            part = part.strip()
            if not part.isdigit() or len(part) > self.length:
                raise TaskError(
                    f"add: each number must have at most {self.length} digits, got {part!r}"
                )
            nums.append([int(c) for c in part.zfill(self.length)])
        return np.array(nums[0] + [self.stoi["+"]] + nums[1] + [self.stoi["="]])

    def decode_answer(self, tokens):
        digits = "".join(self.itos[int(t)] for t in tokens)[::-1]
        return digits.lstrip("0") or "0"

    def format_example(self, seq):
        a = "".join(self.itos[int(t)] for t in seq[: self.length])
        b = "".join(self.itos[int(t)] for t in seq[self.length + 1 : 2 * self.length + 1])
        return f"{int(a)} + {int(b)} = {self.decode_answer(seq[self.prompt_len :])}"


ALGORITHMIC_TASKS = {t.name: t for t in (ReverseTask, SortTask, CopyTask, AddTask)}


def read_utf8(path: pathlib.Path, error: type[ValueError], what: str) -> str:
    """The text of the file at ``path``; a missing, unreadable or non-UTF-8 file raises
    ``error`` with a message naming ``what`` it is (the CLI prints it, no traceback)."""
    if not path.is_file():
        raise error(f"{what} not found: {path}")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise error(
            f"{path}: not valid UTF-8 ({e.reason} at byte {e.start}); save it as UTF-8"
        ) from None
    except OSError as e:
        raise error(f"{path}: cannot read the {what}: {e.strerror}") from None


# ------------------------------------------------------------------------------ text task
class TextTask:
    """A character-level language model on a UTF-8 text file.

    The file's characters are the vocabulary. The last 10% of the text is held out;
    training reads random windows of ``seq_len + 1`` characters from the rest.
    """

    name = "text"
    kind = "text"
    description = "character-level language model on a UTF-8 text file (--text PATH)"

    def __init__(self, path, seq_len: int, seed: int, vocab: list[str] | None = None):
        path = pathlib.Path(path)
        text = read_utf8(path, TaskError, "text file")
        self.path = str(path)
        self.itos = list(vocab) if vocab is not None else sorted(set(text))
        self.stoi = {c: i for i, c in enumerate(self.itos)}
        unknown = sorted(set(text) - set(self.stoi))
        if unknown:
            raise TaskError(
                f"text: {path} has characters the checkpoint's vocabulary lacks: {unknown[:10]}"
            )
        self.vocab_size = len(self.itos)
        data = np.array([self.stoi[c] for c in text], dtype=np.int64)
        self.seq_len = seq_len
        split = int(len(data) * 0.9)
        self.train_data, self.val_data = data[:split], data[split:]
        if len(self.val_data) < seq_len + 2 or len(self.train_data) < seq_len + 2:
            raise TaskError(
                f"text: {path} has {len(data)} characters; with --length {seq_len} (the "
                f"context length) it needs at least {10 * (seq_len + 2)} (10% is held out): "
                "give a longer file or a smaller --length"
            )
        n_windows = len(self.val_data) - seq_len - 1
        starts = np.linspace(0, n_windows, num=min(64, n_windows + 1)).astype(np.int64)
        self.heldout_starts = np.unique(starts)
        del seed

    @classmethod
    def from_vocab(cls, vocab: list[str], seq_len: int, path: str | None = None) -> TextTask:
        """A text task with a known vocabulary and no data: enough to run a trained model
        (``minigrad generate`` needs only the checkpoint, not the original file)."""
        task = cls.__new__(cls)
        task.path = path
        task.itos = list(vocab)
        task.stoi = {c: i for i, c in enumerate(task.itos)}
        task.vocab_size = len(task.itos)
        task.seq_len = seq_len
        task.train_data = task.val_data = np.zeros(0, dtype=np.int64)
        task.heldout_starts = np.zeros(0, dtype=np.int64)
        return task

    def start_tokens(self) -> np.ndarray:
        """Where an unprompted sample starts: the held-out text's first character, or
        (without data) a newline when the vocabulary has one."""
        if len(self.val_data):
            return self.val_data[:1]
        return np.array([self.stoi.get("\n", 0)], dtype=np.int64)

    def batch(self, rng: np.random.Generator, batch_size: int):
        starts = rng.integers(0, len(self.train_data) - self.seq_len - 1, size=batch_size)
        idx = starts[:, None] + np.arange(self.seq_len + 1)
        window = self.train_data[idx]
        return window[:, :-1], window[:, 1:].copy()

    def heldout_batches(self, batch_size: int):
        idx = self.heldout_starts[:, None] + np.arange(self.seq_len + 1)
        window = self.val_data[idx]
        for i in range(0, len(window), batch_size):
            yield window[i : i + batch_size, :-1], window[i : i + batch_size, 1:]

    def encode(self, text: str) -> np.ndarray:
        unknown = sorted(set(text) - set(self.stoi))
        if unknown:
            raise TaskError(f"text: the prompt has characters the model never saw: {unknown}")
        return np.array([self.stoi[c] for c in text], dtype=np.int64)

    def decode(self, tokens) -> str:
        return "".join(self.itos[int(t)] for t in tokens)


TASK_NAMES = (*ALGORITHMIC_TASKS, "text")


def planned_sizes(name: str, length: int) -> tuple[int, int] | None:
    """(sequence length the model reads, vocabulary size) of an algorithmic task, known
    before it is built (for the memory check); None for the text task."""
    if name not in ALGORITHMIC_TASKS:
        return None
    task = ALGORITHMIC_TASKS[name].__new__(ALGORITHMIC_TASKS[name])
    task.length = length
    prompt_len, answer_len = task.layout()
    return prompt_len + answer_len - 1, len(task.digits) + len(task.extra_tokens())


def make_task(name: str, length: int, seed: int, text_path=None, vocab=None, with_data=True):
    """Build a task by name (``reverse``, ``sort``, ``copy``, ``add`` or ``text``).

    With ``with_data=False`` and a ``vocab``, the text task reads no file."""
    if name == "text":
        if not with_data and vocab is not None:
            return TextTask.from_vocab(vocab, length, text_path)
        if text_path is None:
            raise TaskError("text: the text task needs a file: --text PATH")
        return TextTask(text_path, length, seed, vocab=vocab)
    if name not in ALGORITHMIC_TASKS:
        raise TaskError(f"unknown task {name!r}; choose one of: {', '.join(TASK_NAMES)}")
    return ALGORITHMIC_TASKS[name](length, seed)


def bits_per_char(loss_nats: float) -> float:
    return loss_nats / math.log(2)
