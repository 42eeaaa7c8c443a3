"""`mixer.problems.scorers`: the reference log-likelihood under a real (tiny, randomly initialised)
`transformers` causal LM, batched and padded as one sequence at a time would give it, rising for
the reference the model was trained on, and driving a FrontierSampler."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import torch

transformers = pytest.importorskip("transformers")

from mixer import FrontierSampler  # noqa: E402
from mixer.problems.scorers import ReferenceLikelihood, reference_log_likelihood  # noqa: E402


class CharTokenizer:
    """Bytes as tokens, a BOS token first when special tokens are asked for (as many tokenizers)."""

    pad_token_id = 0
    bos = 1

    def __call__(self, text: str, add_special_tokens: bool = True) -> dict:
        ids = [2 + (b % 250) for b in text.encode()]
        return {"input_ids": ([self.bos] if add_special_tokens else []) + ids}


@pytest.fixture
def lm():
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(
        vocab_size=256, n_positions=128, n_embd=32, n_layer=2, n_head=2, resid_pdrop=0.3
    )
    return transformers.GPT2LMHeadModel(cfg)


def _by_hand(model, tok, prompt, ref):
    p, r = tok(prompt)["input_ids"], tok(ref, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([p + r])
    with torch.no_grad():
        logp = torch.log_softmax(model(input_ids=ids).logits[0, :-1], -1)
    return float(logp[len(p) - 1 :].gather(1, ids[0, len(p) :, None]).mean())


def test_batched_and_padded_equals_one_at_a_time(lm):
    tok = CharTokenizer()
    prompts = ["def f(x):", "Sum two numbers.", "a", "Reverse a string s and print it."]
    refs = ["return x + 1", "print(sum(map(int, input().split())))", "b", None]
    lm.train()  # dropout on: the scorer must switch it off, and restore the mode
    got = reference_log_likelihood(lm, tok, prompts, refs, batch_size=3)
    assert lm.training
    lm.eval()
    want = [_by_hand(lm, tok, p, r) for p, r in zip(prompts[:3], refs[:3])]
    np.testing.assert_allclose(got[:3], want, rtol=1e-5, atol=1e-6)
    assert np.isnan(got[3])  # no reference: unknown
    assert np.isnan(reference_log_likelihood(lm, tok, ["x"], [""])[0])
    # too long: the reference keeps at least half of max_length, the prompt loses its start
    long = reference_log_likelihood(lm, tok, ["p" * 200], ["q" * 200], max_length=64)
    assert np.isfinite(long[0])
    with pytest.raises(ValueError, match="2 prompts for 1 references"):
        reference_log_likelihood(lm, tok, ["a", "b"], ["c"])


def test_training_on_a_reference_raises_its_likelihood_most(lm):
    tok = CharTokenizer()
    prompts = ["Add one to x.", "Double x.", "Negate x."]
    refs = ["return x + 1", "return 2 * x", "return -x"]
    before = reference_log_likelihood(lm, tok, prompts, refs)
    opt = torch.optim.Adam(lm.parameters(), lr=3e-3)
    ids = torch.tensor([tok(prompts[0] + refs[0])["input_ids"]])
    lm.train()
    for _ in range(30):
        lm(input_ids=ids, labels=ids).loss.backward()
        opt.step()
        opt.zero_grad()
    gain = reference_log_likelihood(lm, tok, prompts, refs) - before
    assert gain[0] > 1.0 and gain[0] > gain[1:].max() + 0.5, gain


def test_a_sampler_scores_candidates_from_a_build_table(lm):
    tok = CharTokenizer()
    n = 24
    table = pa.table(
        {
            "statement": [f"Problem {i}: print {i}." for i in range(n)],
            "solutions": [[f"print({i})"] if i % 5 else [] for i in range(n)],
        }
    )
    scorer = ReferenceLikelihood.from_table(
        lm, tok, table, format_prompt=lambda s: "### " + s + "\n", batch_size=4
    )
    x = scorer(np.arange(n))
    assert np.isnan(x[::5]).all() and np.isfinite(np.delete(x, np.arange(0, n, 5))).all()
    s = FrontierSampler({"a": range(12), "b": range(12, n)}, 4, seed=0, scorer=scorer)
    batch = s.next_batch()
    assert len(batch) == 4 and s.ledger["scored_prompts"] == 16
    with pytest.raises(IndexError):
        scorer(np.array([n]))
    with pytest.raises(ValueError, match="no column 'prompt'"):
        ReferenceLikelihood.from_table(lm, tok, table, prompt_column="prompt")
