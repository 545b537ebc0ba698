import numpy as np
import pytest

from minigrad.train.tasks import IGNORE, AddTask, TaskError, TextTask, make_task


@pytest.mark.parametrize("name", ["reverse", "sort", "copy"])
def test_sequence_tasks_put_the_answer_after_the_separator(name):
    task = make_task(name, 6, seed=0)
    seqs = task.sample(np.random.default_rng(0), 50)
    x, sep, y = seqs[:, :6], seqs[:, 6], seqs[:, 7:]
    assert (sep == task.stoi[">"]).all()
    expected = {"reverse": x[:, ::-1], "sort": np.sort(x, axis=1), "copy": x}[name]
    assert (y == expected).all()


def test_add_writes_the_sum_least_significant_digit_first():
    task = AddTask(3, seed=0)
    seq = task.encode_prompt("47+85")
    assert task.decode_answer([2, 3, 1, 0]) == "132"
    assert [task.itos[t] for t in seq] == list("047+085=")
    seqs = task.sample(np.random.default_rng(1), 200)
    for row in seqs:
        a = int("".join(map(str, row[:3])))
        b = int("".join(map(str, row[4:7])))
        assert task.decode_answer(row[8:]) == str(a + b)


def test_only_answer_tokens_are_scored():
    task = make_task("reverse", 4, seed=0)
    seqs = task.sample(np.random.default_rng(0), 3)
    inputs, targets = task.inputs_targets(seqs)
    assert inputs.shape == targets.shape == (3, 8)
    assert (targets[:, :4] == IGNORE).all()
    assert (targets[:, 4:] == seqs[:, 5:]).all()
    assert (inputs == seqs[:, :-1]).all()


def test_training_batches_never_contain_held_out_examples():
    task = make_task("copy", 2, seed=3)  # 100 possible inputs, 20 held out
    held = {row.tobytes() for row in task.heldout}
    assert len(held) == len(task.heldout) == 20
    batch = task.sample(np.random.default_rng(0), 2000)
    assert not any(row.tobytes() in held for row in batch)


def test_generation_is_deterministic_in_the_seed():
    a = make_task("add", 3, seed=5)
    b = make_task("add", 3, seed=5)
    c = make_task("add", 3, seed=6)
    assert (a.heldout == b.heldout).all()
    assert not (a.heldout == c.heldout).all()
    assert (a.sample(np.random.default_rng(1), 8) == b.sample(np.random.default_rng(1), 8)).all()


def test_bad_task_inputs_are_clear_errors(tmp_path):
    with pytest.raises(TaskError, match="unknown task 'revers'"):
        make_task("revers", 4, seed=0)
    with pytest.raises(TaskError, match="must be 4 digits"):
        make_task("reverse", 4, seed=0).encode_prompt("12a4")
    with pytest.raises(TaskError, match="at most 2 digits"):
        make_task("add", 2, seed=0).encode_prompt("123+4")
    with pytest.raises(TaskError, match="text file not found"):
        make_task("text", 16, seed=0, text_path=tmp_path / "missing.txt")
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("caf\xe9 ".encode("latin-1") * 100)
    with pytest.raises(TaskError, match="not valid UTF-8"):
        make_task("text", 16, seed=0, text_path=bad)


def test_text_task_windows_and_held_out_split(tmp_path):
    path = tmp_path / "t.txt"
    text = "".join(chr(97 + (i * 7) % 26) for i in range(5000))
    path.write_text(text, encoding="utf-8")
    task = TextTask(path, seq_len=32, seed=0)
    assert task.vocab_size == 26
    x, y = task.batch(np.random.default_rng(0), 4)
    assert x.shape == y.shape == (4, 32)
    assert (x[:, 1:] == y[:, :-1]).all()  # targets are the inputs shifted by one
    assert task.decode(task.encode("hello")) == "hello"
    held = np.concatenate([xb for xb, _ in task.heldout_batches(16)])
    assert held.shape[1] == 32
    assert len(task.val_data) == 500


def test_text_task_refuses_a_file_too_short_for_the_context(tmp_path):
    path = tmp_path / "short.txt"
    path.write_text("abc" * 20, encoding="utf-8")
    with pytest.raises(TaskError, match="needs at least"):
        TextTask(path, seq_len=64, seed=0)


@pytest.mark.parametrize("length", [1, 3, 18, 19, 40])
def test_add_is_right_at_any_length_without_int64_overflow(length):
    task = make_task("add", length, seed=0)
    for seq in task.draw(np.random.default_rng(length), 20):
        a = int("".join(map(str, seq[:length])))
        b = int("".join(map(str, seq[length + 1 : 2 * length + 1])))
        assert task.decode_answer(seq[task.prompt_len :]) == str(a + b)  # Python ints


def test_planned_sizes_match_the_built_task():
    from minigrad.train.tasks import planned_sizes

    for name in ("reverse", "sort", "copy", "add"):
        task = make_task(name, 5, seed=0)
        assert planned_sizes(name, 5) == (task.seq_len, task.vocab_size), name
    assert planned_sizes("text", 5) is None
