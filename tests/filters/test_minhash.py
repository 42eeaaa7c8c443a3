"""Code-aware shingles and MinHash signatures: stable, batch-independent, close to exact Jaccard."""

from __future__ import annotations

import random

import numpy as np
import pytest

from filters.stages.dedup import shingles as shingles_mod
from filters.stages.dedup.minhash import (
    EMPTY,
    band_hashes,
    estimate_jaccard,
    jaccard,
    lsh_params,
    minhash_signatures,
)
from filters.stages.dedup.shingles import (
    code_shingles,
    code_tokens,
    shingle_hashes,
    text_keys,
    token_hashes,
)

WORDS = (
    "given array integer string return number sum maximum minimum element index pair subarray "
    "length query tree node edge graph path count distinct sorted order value prefix window"
).split()


def _texts(n: int, seed: int = 0) -> list[str]:
    rnd = random.Random(seed)
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(20, 80))) for _ in range(n)]


def test_operators_and_digits_are_tokens() -> None:
    assert code_tokens("a[i+1]") == ["<id>", "[", "<id>", "+", "1", "]"]
    assert code_tokens("a[i-1]") == ["<id>", "[", "<id>", "-", "1", "]"]
    assert jaccard(code_shingles("x = a[i+1] * 2"), code_shingles("x = a[i-1] * 2")) < 0.5
    assert not np.array_equal(code_shingles("a[i+1]"), code_shingles("a[i-1]"))


def test_identifiers_become_placeholders_but_words_and_keywords_stay() -> None:
    toks = code_tokens(
        "Given an array nums, return max(nums) if len(nums) > 0, with my_var and camelCase."
    )
    assert toks[:4] == ["given", "an", "array", "<id>"]  # nums is code elsewhere in the text
    assert "max" in toks and "len" in toks and "return" in toks
    assert toks.count("<id>") == 5
    renamed = "Given an array arr, return max(arr) if len(arr) > 0, with other_v and someName."
    assert np.array_equal(
        code_shingles(
            "Given an array nums, return max(nums) if len(nums) > 0, with my_var and camelCase."
        ),
        code_shingles(renamed),
    )


def test_case_whitespace_and_nbsp_are_folded() -> None:
    a = code_shingles("Return the SUM\xa0of  all\n values.")
    b = code_shingles("return the sum of all values .")
    assert np.array_equal(a, b)
    ka, _ = text_keys(["Hello  World", "hello world", "hello worlds", ""])
    assert ka[0] == ka[1] != ka[2] and ka[3] == 0


def test_hashes_are_stable_constants() -> None:
    # Fixed values: a change here means every stored signature changes (and Python's salted
    # hash() must never be used).
    h, off = token_hashes(["a[i+1]"])
    assert off.tolist() == [0, 6]
    assert int(code_shingles("a[i+1]")[0]) == 8976145260337002204


def test_short_texts_get_one_shingle_and_stay_distinct() -> None:
    sh, off = shingle_hashes(["sort", "reverse it", "", "a b c d e f g"], k=5)
    assert np.diff(off).tolist() == [1, 1, 0, 3]
    assert sh[0] != sh[1]


def test_batching_and_chunking_do_not_change_results(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(60) + ["", "x", "a[i+1] é ünïcödé"]
    whole, off = shingle_hashes(texts)
    one_by_one = [shingle_hashes([t])[0] for t in texts]
    for i, part in enumerate(one_by_one):
        assert np.array_equal(whole[off[i] : off[i + 1]], part)
    monkeypatch.setattr(shingles_mod, "_CHUNK_BYTES", 64)
    again, off2 = shingle_hashes(texts)
    assert np.array_equal(again, whole) and np.array_equal(off, off2)
    assert np.array_equal(
        minhash_signatures(texts), minhash_signatures(list(reversed(texts)))[::-1]
    )


def test_signature_estimates_track_exact_jaccard() -> None:
    rnd = random.Random(1)
    base = _texts(40, seed=2)
    pairs = []
    for t in base:
        words = t.split()
        for _ in range(rnd.randint(0, len(words) // 3)):
            words[rnd.randrange(len(words))] = rnd.choice(WORDS)
        pairs.append((t, " ".join(words)))
    texts = [x for p in pairs for x in p]
    sig = minhash_signatures(texts, num_perm=128)
    errs = []
    for i in range(len(pairs)):
        exact = jaccard(code_shingles(texts[2 * i]), code_shingles(texts[2 * i + 1]))
        errs.append(abs(estimate_jaccard(sig[2 * i], sig[2 * i + 1]) - exact))
    assert np.mean(errs) < 0.05
    assert max(errs) < 0.2


def test_empty_text_signature_is_empty_and_short_text_is_dense() -> None:
    sig = minhash_signatures(["", "two words"])
    assert (sig[0] == EMPTY).all()
    assert (sig[1] != EMPTY).all()


def test_lsh_params_meet_recall_at_threshold() -> None:
    for t in (0.5, 0.7, 0.8, 0.9):
        b, r = lsh_params(t, 128)
        assert b * r <= 128
        assert 1 - (1 - t**r) ** b >= 0.97
    sig = minhash_signatures(["same text here", "same text here", "other"])
    bh = band_hashes(sig, 18, 7)
    assert (bh[0] == bh[1]).all() and (bh[0] != bh[2]).any()


def test_jaccard_on_sets_and_arrays() -> None:
    assert jaccard({1, 2, 3}, {2, 3, 4}) == 0.5
    assert jaccard(np.array([1, 2, 3], np.uint64), np.array([2, 3, 4], np.uint64)) == 0.5
    assert jaccard(set(), set()) == 0.0
