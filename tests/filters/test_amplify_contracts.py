"""The input generator keeps the contracts its originals give evidence of (one test per rule),
on the shapes of LeetCodeDataset problems whose correct second solutions failed generated inputs."""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from filters.stages.amplify.inputgen import CallInputs


def _kwargs(rows: list[dict[str, Any]]) -> list[str]:
    return [json.dumps({"args": [], "kwargs": r}) for r in rows]


def _generated(originals: list[dict[str, Any]], draws: int = 400) -> Iterator[dict[str, Any]]:
    gen = CallInputs(_kwargs(originals), typed=True)
    made = 0
    for seed in range(draws):
        text = gen.generate(random.Random(seed), seed % len(originals))
        if text is not None:
            made += 1
            yield gen.decode(text)
    assert made > draws // 10  # the rules restrict, they do not stop generation


def test_a_01_grid_stays_01():
    # island-perimeter: cells are 0 or 1 in every original; a 3 is not a cell
    originals = [
        {"grid": [[0, 1, 0, 0], [1, 1, 1, 0], [0, 1, 0, 0], [1, 1, 0, 0]]},
        {"grid": [[1]]},
        {"grid": [[1, 0]]},
    ]
    for args in _generated(originals):
        assert {c for row in args["grid"] for c in row} <= {0, 1}, args


def test_list_values_stay_in_the_range_the_originals_span():
    # utf-8-validation: bytes; six values between 1 and 235 and never more than 255
    originals = [{"data": [197, 130, 1]}, {"data": [235, 140, 4]}]
    for args in _generated(originals):
        assert all(1 <= x <= 235 for x in args["data"]), args


def test_columns_of_short_rows_keep_their_own_range_and_bounds():
    # range-addition: [start, end, inc]; the increment may be negative, an index may not, and
    # every index stays below `length`
    originals = [{"length": 5, "updates": [[1, 3, 2], [2, 4, 3], [0, 2, -2]]}]
    for args in _generated(originals, draws=600):
        for start, end, _ in args["updates"]:
            assert 0 <= start <= end < args["length"], args


def test_k_stays_within_the_total_length_and_the_cells_of_a_matrix():
    # create-maximum-number: k <= len(nums1) + len(nums2)
    originals = [
        {"nums1": [3, 4, 6, 5], "nums2": [9, 1, 2, 5, 8, 3], "k": 5},
        {"nums1": [6, 7], "nums2": [6, 0, 4], "k": 5},
        {"nums1": [3, 9], "nums2": [8, 9], "k": 3},
    ]
    for args in _generated(originals):
        assert args["k"] <= len(args["nums1"]) + len(args["nums2"]), args


def test_a_square_matrix_stays_square_and_k_within_its_cells():
    # kth-smallest-element-in-a-sorted-matrix: n x n, k <= n * n
    originals = [
        {"matrix": [[1, 5, 9], [10, 11, 13], [12, 13, 15]], "k": 8},
        {"matrix": [[-5]], "k": 1},
        {"matrix": [[1, 2], [1, 3]], "k": 2},
    ]
    for args in _generated(originals):
        m = args["matrix"]
        assert all(len(row) == len(m) for row in m), args
        assert args["k"] <= len(m) * len(m), args


def test_a_constant_gap_between_sizes_is_kept():
    # find-the-difference: t is s plus one letter; minimum-height-trees: n nodes, n - 1 edges
    originals = [{"s": "abcd", "t": "abcde"}, {"s": "", "t": "y"}]
    for args in _generated(originals):
        assert len(args["t"]) == len(args["s"]) + 1, args
    trees = [
        {"n": 4, "edges": [[1, 0], [1, 2], [1, 3]]},
        {"n": 6, "edges": [[3, 0], [3, 1], [3, 2], [3, 4], [5, 4]]},
    ]
    gen = CallInputs(_kwargs(trees), typed=True)
    for seed in range(300):
        text = gen.generate(random.Random(seed), seed % 2)
        if text is not None:
            args = gen.decode(text)
            assert args["n"] == len(args["edges"]) + 1, args


def test_an_argument_that_is_an_element_of_a_list_stays_one():
    # shortest-word-distance-iii: word1 and word2 are words of wordsDict
    words = ["practice", "makes", "perfect", "coding", "makes"]
    originals = [
        {"wordsDict": words, "word1": "makes", "word2": "coding"},
        {"wordsDict": words, "word1": "makes", "word2": "makes"},
    ]
    for args in _generated(originals):
        assert args["word1"] in args["wordsDict"] and args["word2"] in args["wordsDict"], args


def test_a_string_starts_and_ends_as_the_originals_do():
    # compare-version-numbers: no version starts or ends with '.'
    originals = [
        {"version1": "1.2", "version2": "1.10"},
        {"version1": "1.01", "version2": "1.001"},
        {"version1": "1.0", "version2": "1.0.0.0"},
    ]
    for args in _generated(originals):
        for v in args.values():
            assert v[0] != "." and v[-1] != ".", args


def test_numbers_in_digits_stay_numbers_in_order_without_leading_zeros():
    # strobogrammatic-number-iii: low <= high, both numbers without a leading zero
    originals = [{"low": "50", "high": "100"}, {"low": "0", "high": "0"}]
    for args in _generated(originals):
        low, high = args["low"], args["high"]
        assert low.isdigit() and high.isdigit() and int(low) <= int(high), args
        assert all(len(v) == 1 or v[0] != "0" for v in (low, high)), args


def test_two_lists_of_equal_sum_keep_it():
    # minimum-number-of-operations-to-make-arrays-similar: moves keep the sum, so inputs whose sums
    # differ have no answer (two correct programs answered one such input differently)
    originals = [
        {"nums": [8, 12, 6], "target": [2, 14, 10]},
        {"nums": [1, 2, 5], "target": [4, 1, 3]},
        {"nums": [1, 1, 1, 1, 1], "target": [1, 1, 1, 1, 1]},
    ]
    for args in _generated(originals):
        assert sum(args["nums"]) == sum(args["target"]), args


def test_a_string_whose_letters_are_all_in_another_stays_so():
    # find-the-difference: t is s shuffled with one letter added; s = "abcd", t = "bbcde" is not
    originals = [{"s": "abcd", "t": "abcde"}, {"s": "", "t": "y"}]
    for args in _generated(originals):
        assert not Counter(args["s"]) - Counter(args["t"]) and len(args["t"]) == len(args["s"]) + 1


def test_equal_sums_and_letters_need_evidence():
    # one differing pair is a coincidence, not a contract: both stay free
    gen = CallInputs(_kwargs([{"a": [1, 2], "b": [3]}, {"a": [5], "b": [5]}]), typed=True)
    assert gen.contract.equal_sums == [] and gen.contract.contained == []
    gen = CallInputs(_kwargs([{"s": "ab", "t": "abc"}]), typed=True)  # 2 letters: not enough
    assert gen.contract.contained == []


def test_a_length_of_3n_stays_a_multiple_of_3():
    # minimum-difference-in-sums-after-removal-of-elements (held-out sample 3): `nums` has 3n
    # elements; a generated list of 4 had no right answer, and the references agreed on one a third
    # correct solution did not give
    originals = [{"nums": [3, 1, 2]}, {"nums": [7, 9, 5, 8, 1, 3]}]
    lengths = Counter(len(args["nums"]) for args in _generated(originals))
    assert lengths and all(n % 3 == 0 for n in lengths), lengths


def test_a_length_step_of_2_is_not_a_rule():
    # lengths 2 and 4 are even by chance as often as not: lists of odd length are still drawn
    originals = [{"nums": [1, 5]}, {"nums": [4, 2, 8, 6]}]
    assert any(len(args["nums"]) % 2 for args in _generated(originals))


def test_an_undirected_edge_is_not_repeated_reversed():
    # critical-connections-in-a-network (held-out sample 3): "no repeated connections"; a generated
    # [[0, 1], [0, 2], [2, 0], [1, 3]] made [0, 2] two parallel edges, no longer a bridge
    originals = [
        {"n": 4, "connections": [[0, 1], [1, 2], [2, 0], [1, 3]]},
        {"n": 2, "connections": [[0, 1]]},
    ]
    for args in _generated(originals):
        edges = {tuple(sorted(e)) for e in args["connections"]}
        assert len(edges) == len(args["connections"]), args


def test_a_pair_and_its_reverse_stay_allowed_where_an_original_has_them():
    # course-schedule: [[1, 0], [0, 1]] is a cycle of two courses, an input of the problem
    originals = [{"numCourses": 2, "prerequisites": [[1, 0]]},
                 {"numCourses": 2, "prerequisites": [[1, 0], [0, 1]]}]  # fmt: skip
    seen = [args["prerequisites"] for args in _generated(originals)]
    assert any(len({tuple(sorted(e)) for e in p}) < len(p) for p in seen)
