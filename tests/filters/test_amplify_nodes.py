"""LeetCodeDataset's tree and linked-list problems as call tests, amplified and verified.

Their asserts build arguments with `tree_node([...])` / `list_node([...])` and compare with
`is_same_tree` / `is_same_list`: before, `convert_problem` refused them (a call of a function other
than the one under test), so amplification skipped them and verify dropped them as too_few_tests.
Rows come from ../shared/data (the tests skip without it); codec and generator rules also run on
values written out here in the rows' own form.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest

from curation.record_files import records_to_table
from curation.schema import normalize_record
from curation.sources.local import convert_leetcodedataset
from filters.contracts import problem_id
from filters.judging.judged import judged_problem
from filters.reward import grade
from filters.sandbox import Sandbox
from filters.sandbox.assert_calls import convert_problem, evaluate_assertion
from filters.sandbox.valuecodec import (
    ListValue,
    TreeValue,
    Unencodable,
    dumps,
    encode,
    list_value,
    loads,
    tree_value,
)
from filters.settings import AmplifyConfig, VerifyConfig
from filters.stages.amplify.inputgen import CallInputs, is_search_tree, traversals
from filters.stages.amplify.stage import AmplifyStage, expected_check
from filters.stages.amplify.trees import child_order, is_full, tree_links
from filters.stages.verify.stage import VerifyStage

LEETCODE = (
    Path(__file__).resolve().parents[2].parent / "shared" / "data"
    / "LeetCodeDataset-v0.2.0-train.jsonl.gz"
)  # fmt: skip


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    if not LEETCODE.exists():
        pytest.skip("../shared/data is not here")
    out = {}
    with gzip.open(LEETCODE, "rt") as f:
        for line in f:
            d = json.loads(line)
            out[d["task_id"]] = d
    return out


@pytest.fixture(scope="module")
def sb():
    with Sandbox(workers=2) as box:
        yield box


def record(rows: dict[str, dict[str, Any]], task: str) -> dict[str, Any]:
    rec = normalize_record(dict(convert_leetcodedataset(rows[task]), source="leetcodedataset"))
    rec["problem_id"] = problem_id(rec["source"], rec["id"])
    return rec


def completion_only(rows: dict[str, dict[str, Any]], task: str) -> str:
    """The row's solution without its prompt: no TreeNode/ListNode/tree_node of its own."""
    return "from typing import *\n\n" + rows[task]["completion"]


# ---- the codec --------------------------------------------------------------------------------------
class Tree:
    def __init__(self, val, left=None, right=None):
        self.val, self.left, self.right = val, left, right


class Node:
    def __init__(self, val, next=None):
        self.val, self.next = val, next


def test_a_tree_is_its_canonical_level_order():
    # tree_node reads no value past the last node's children, and trailing holes say nothing
    assert tree_value([1, None, 2, 3]) == tree_value([1, None, 2, 3, None, None, None])
    assert tree_value([1, None, 2, None, None, 9]).items == (1, None, 2)
    assert tree_value([]) is None and list_value([]) is None
    assert tree_value([1, 2]) != tree_value([1, None, 2])  # left child vs right child
    assert tree_value([1, 2]) != list_value([1, 2])
    with pytest.raises(ValueError):
        tree_value([None, 1])


def test_node_objects_encode_as_their_shape_and_decode_to_values():
    root = Tree(1, None, Tree(2, Tree(3)))
    assert encode(root) == {"T": [1, None, 2, 3]}
    assert loads(dumps(root)) == tree_value([1, None, 2, 3])
    head = Node(1, Node(2, Node(3)))
    assert loads(dumps([head, None])) == [list_value([1, 2, 3]), None]
    assert loads(dumps(tree_value([5, 3]))) == TreeValue((5, 3))


def test_cycles_shared_nodes_and_non_canonical_trees_are_refused():
    a = Node(1)
    a.next = Node(2, a)
    with pytest.raises(Unencodable):
        encode(a)
    leaf = Tree(2)
    with pytest.raises(Unencodable):
        encode(Tree(1, leaf, leaf))
    with pytest.raises(ValueError):
        loads('{"T": [1, null, 2, null, null]}')  # trailing holes: not the canonical form
    with pytest.raises(ValueError):
        loads('{"L": []}')  # the empty list is None


# ---- conversion and judging on real rows ---------------------------------------------------------------
@pytest.mark.parametrize(
    "task, shape",
    [
        ("binary-tree-inorder-traversal", "tree argument"),
        ("reverse-linked-list", "list argument, is_same_list"),
        ("construct-binary-tree-from-preorder-and-inorder-traversal", "tree return, is_same_tree"),
        ("add-two-numbers", "two list arguments, list return"),
        ("delete-node-in-a-bst", "tree argument and return"),
    ],
)
def test_tree_and_list_suites_convert_and_the_reference_passes(rows, sb, task, shape):
    if task not in rows:
        pytest.skip(f"{task} is not in this copy of the data")
    rec = record(rows, task)
    conv, why = convert_problem(rec)
    assert conv is not None, why  # failed before: "call of tree_node" / "call of is_same_list"
    assert conv["typed_calls"] and len(conv["tests"]) == rec["test_code"].count("assert ")
    # the reference (prompt + completion) and the completion alone (nodes built by the harness)
    assert sb.run(conv, rec["solutions"][0]).verdict == "AC", shape
    assert sb.run(conv, completion_only(rows, task)).verdict == "AC", shape


def test_a_wrong_tree_or_list_answer_fails(rows, sb):
    rec = record(rows, "reverse-linked-list")
    conv, _ = convert_problem(rec)
    identity = (
        "class Solution:\n"
        "    def reverseList(self, head):\n"
        "        return head\n"
    )  # fmt: skip
    r = sb.run(conv, identity)
    assert r.verdict == "WA"
    cyclic = (
        "class Solution:\n"
        "    def reverseList(self, head):\n"
        "        if head:\n"
        "            head.next = head\n"
        "        return head\n"
    )  # fmt: skip
    assert sb.run(conv, cyclic).verdict in ("RE", "WA")  # refused as a cycle, never a hang


def test_is_same_tree_compares_shapes_in_the_parent():
    check = "is_same_tree(__cm_result, tree_node([3, 9, 20, None, None, 15, 7]))"
    test = {"check": check, "env": "{}"}
    assert evaluate_assertion(test, tree_value([3, 9, 20, None, None, 15, 7]))
    assert not evaluate_assertion(test, tree_value([3, 9, 20, 15, 7]))
    with pytest.raises(TypeError):  # a list is not a tree (in the program: AttributeError)
        evaluate_assertion(test, [3, 9, 20])


def test_generated_checks_compare_trees_and_lists_by_shape():
    value = tree_value([1, 2])
    assert (
        expected_check("is_same_tree(__cm_result, tree_node([1, None, 2]))", value)
        == "is_same_tree(__cm_result, __cm_expected)"
    )
    assert (
        expected_check("is_same_list(list_node([5]), __cm_result)", list_value([4]))
        == "is_same_list(__cm_result, __cm_expected)"
    )


# ---- input generation --------------------------------------------------------------------------------
def _generated(originals: list[dict[str, Any]], draws: int = 300) -> list[dict[str, Any]]:
    texts = [json.dumps({"args": [], "kwargs": {k: encode(v) for k, v in o.items()}})
             for o in originals]  # fmt: skip
    gen = CallInputs(texts, typed=True)
    out = []
    for seed in range(draws):
        text = gen.generate(random.Random(seed), seed % len(originals))
        if text is not None:
            out.append(gen.decode(text))
    assert len(out) > draws // 10
    return out


def test_trees_mutate_into_valid_trees_and_keep_k_within_the_node_count():
    # kth-smallest-element-in-a-bst: a search tree, k <= number of nodes, k a node's value
    originals = [
        {"root": tree_value([3, 1, 4, None, 2]), "k": 1},
        {"root": tree_value([5, 3, 6, 2, 4, None, None, 1]), "k": 3},
    ]
    made = _generated(originals)
    shapes = {a["root"] for a in made}
    assert len(shapes) > 4  # new trees, not the originals again
    for a in made:
        assert type(a["root"]) is TreeValue and a["root"].items[0] is not None
        assert is_search_tree(a["root"]), a
        assert 1 <= a["k"] <= len(a["root"]), a


def test_a_complete_tree_stays_complete_and_an_empty_tree_needs_an_empty_original():
    # count-complete-tree-nodes
    made = _generated([{"root": tree_value([1, 2, 3, 4, 5, 6])}, {"root": tree_value([1, 2, 3])}])
    assert all(a["root"] is not None and None not in a["root"].items for a in made)
    assert len({a["root"] for a in made}) > 3
    with_empty = _generated([{"root": tree_value([1, 2, 3, 4, 5, 6])}, {"root": None}])
    assert any(a["root"] is None for a in with_empty)


def test_a_sorted_linked_list_stays_sorted_and_a_twin_list_stays_even():
    # merge-two-sorted-lists; maximum-twin-sum-of-a-linked-list
    merged = _generated([{"l1": list_value([1, 2, 4]), "l2": list_value([1, 3, 4])},
                         {"l1": list_value([0, 5, 7]), "l2": list_value([2, 6])}])  # fmt: skip
    for a in merged:
        for v in (a["l1"], a["l2"]):
            assert type(v) is ListValue and list(v.items) == sorted(v.items), a
    twins = _generated([{"head": list_value([5, 4, 2, 1])}, {"head": list_value([4, 2, 2, 3])},
                        {"head": list_value([1, 100000])}])  # fmt: skip
    assert all(len(a["head"]) % 2 == 0 for a in twins)


# ---- through the stages: amplify, verify, the reward ---------------------------------------------------
def test_a_tree_problem_is_amplified_verified_and_graded_alike(rows, sb):
    rec = record(rows, "binary-tree-inorder-traversal")
    before = VerifyStage(VerifyConfig(min_tests=5, mutants=4), sandbox=sb).process(records_to_table([rec]))
    assert before.dropped.num_rows == 1  # 3 original tests: too few

    amplified = AmplifyStage(AmplifyConfig(target_tests=8), sandbox=sb).process(records_to_table([rec]))
    (out,) = amplified.kept.to_pylist()
    assert out["amplify_status"] == "amplified", out["amplify_note"]
    assert len(out["generated_tests"]) >= 2
    assert all('"T"' in t["input"] or '"root": null' in t["input"] for t in out["generated_tests"])

    (kept,) = (
        VerifyStage(VerifyConfig(min_tests=5, mutants=4), sandbox=sb).process(amplified.kept).kept.to_pylist()
    )
    assert kept["reward_isolation"] == "converted"
    judged = judged_problem(out)
    preorder = (
        "class Solution:\n"
        "    def inorderTraversal(self, root):\n"
        "        return [] if root is None else ([root.val] + self.inorderTraversal(root.left)\n"
        "                                        + self.inorderTraversal(root.right))\n"
    )  # fmt: skip
    assert sb.run(judged, completion_only(rows, "binary-tree-inorder-traversal")).verdict == "AC"
    assert sb.run(judged, preorder).verdict == "WA"
    assert (
        grade(out, completion_only(rows, "binary-tree-inorder-traversal"), sandbox=sb).score == 1.0
    )
    assert grade(out, preorder, sandbox=sb).score == 0.0


# ---- contracts found by second solutions failing generated inputs (one test each) ----------------------
def test_a_search_tree_with_equal_values_stays_one():
    # find-mode-in-binary-search-tree: left <= node <= right; [2, null, 2, 1] is not a search tree
    made = _generated([{"root": tree_value([1, None, 2, 2])}, {"root": tree_value([0])}])
    assert all(is_search_tree(a["root"]) for a in made)


def test_a_full_tree_whose_nodes_hold_their_childrens_minimum_stays_one():
    # second-minimum-node-in-a-binary-tree: 0 or 2 children, a node holds the smaller child value
    made = _generated([{"root": tree_value([2, 2, 5, None, None, 5, 7])},
                       {"root": tree_value([2, 2, 2])}])  # fmt: skip
    for a in made:
        nodes = tree_links(a["root"].items)
        assert is_full(nodes) and "min" in child_order(nodes), a


def test_leaves_and_inner_nodes_keep_their_own_values():
    # evaluate-boolean-binary-tree: leaves are 0/1, inner nodes 2 (OR) / 3 (AND), two children
    made = _generated(
        [{"root": tree_value([2, 1, 3, None, None, 0, 1])}, {"root": tree_value([0])}]
    )
    for a in made:
        for val, left, right in tree_links(a["root"].items):
            assert (val in (0, 1)) == (left is None and right is None), a
            assert (left is None) == (right is None), a


def test_a_linked_list_keeps_the_first_and_last_values_every_original_has():
    # merge-nodes-in-between-zeros: the list starts and ends with 0
    made = _generated([{"head": list_value([0, 3, 1, 0, 4, 5, 2, 0])},
                       {"head": list_value([0, 1, 0, 3, 0, 2, 2, 0])}])  # fmt: skip
    assert all(a["head"].items[0] == 0 and a["head"].items[-1] == 0 for a in made)
    # ... and, as in every original, two zeros never follow each other
    assert all(
        not (a == b == 0) for x in made for a, b in zip(x["head"].items, x["head"].items[1:])
    )


def test_a_tree_built_from_lists_must_read_back_as_them():
    # construct-binary-search-tree-from-preorder-traversal and ...-from-preorder-and-postorder:
    # second solutions failed inputs no tree has ([8, 11, 1, 7, 10, 12] is no search tree's
    # preorder; the preorder and postorder below are of two different trees), on which the
    # reference still returned a tree. What the originals show: the tree reads back as its input.
    from filters.stages.amplify.stage import _round_trips, _trips_of

    def call(**kw: Any) -> str:
        return json.dumps({"args": [], "kwargs": kw})

    bst = _round_trips([(call(preorder=[8, 5, 1, 7, 10, 12]), tree_value([8, 5, 10, 1, 7, None, 12])),
                        (call(preorder=[1, 3]), tree_value([1, None, 3]))])  # fmt: skip
    assert bst == {("preorder", "preorder"), ("result", "search tree")}
    bad = _trips_of({"preorder": [8, 11, 1, 7, 10, 12]},
                    tree_value([8, 11, 10, 1, None, None, 12, None, 7]))  # fmt: skip
    assert ("preorder", "preorder") in bad and not bst <= bad  # reads back, but no search tree

    pre, post = [1, 2, 4, 5, 3, 6, 7], [4, 5, 2, 6, 7, 3, 1]
    both = _round_trips([(call(preorder=pre, postorder=post), tree_value([1, 2, 3, 4, 5, 6, 7])),
                         (call(preorder=[1], postorder=[1]), tree_value([1]))])  # fmt: skip
    assert {("preorder", "preorder"), ("postorder", "postorder")} <= both
    bad = _trips_of(
        {"preorder": [3, 7, 6, 5, 2, 4, 1], "postorder": [4, 5, 2, 6, 7, 3, 1]},
        tree_value([3, 7, 1, 6, None, None, None, 5, 4, 2, None, None, None, 4, 1]),
    )
    assert not both <= bad


def test_amplified_inputs_of_a_tree_construction_are_trees_inputs(rows, sb):
    rec = record(rows, "construct-binary-search-tree-from-preorder-traversal")
    (out,) = AmplifyStage(sandbox=sb).process(records_to_table([rec])).kept.to_pylist()
    assert out["amplify_status"] == "amplified", out["amplify_note"]
    for t in out["generated_tests"]:
        tree = loads(t["output"])
        assert is_search_tree(tree), t
        assert list(traversals(tree)["preorder"]) == json.loads(t["input"])["kwargs"]["preorder"]
