"""Code extraction from completions: fences, tags, truncation, several blocks, prose, chat messages."""

from __future__ import annotations

import pytest

from filters.reward import completion_text, extract_code, looks_like_code

F = "```"


@pytest.mark.parametrize(
    "text, expected",
    [
        (f"Here it is:\n{F}python\nprint(1)\n{F}\nDone.", "print(1)\n"),
        (f"{F}py\nprint(2)\n{F}", "print(2)\n"),
        (f"{F}python3\nprint(3)\n{F}", "print(3)\n"),
        (f"{F}Python\nprint(4)\n{F}", "print(4)\n"),
        (f"{F}\nimport sys\nprint(sys.stdin.read())\n{F}", "import sys\nprint(sys.stdin.read())\n"),
        (f"{F}python {{title=sol.py}}\nx = 1\n{F}", "x = 1\n"),  # info string after the tag
        ("~~~python\nprint(5)\n~~~", "print(5)\n"),
        (f"  {F}python\nprint(6)\n  {F}", "print(6)\n"),  # indented fences
    ],
)
def test_fenced_blocks(text, expected):
    assert extract_code(text) == expected


def test_unterminated_fence_runs_to_the_end():
    text = f"Solution:\n{F}python\nn = int(input())\nprint(n * 2)\n"
    assert extract_code(text) == "n = int(input())\nprint(n * 2)\n"


def test_last_python_block_wins():
    text = (
        f"First try:\n{F}python\nprint('draft')\n{F}\nExample input:\n{F}\n3\n1 2 3\n{F}\n"
        f"Final:\n{F}python\nprint('final')\n{F}\nOutput:\n{F}text\n6\n{F}\n"
    )
    assert extract_code(text) == "print('final')\n"


def test_untagged_block_used_only_when_it_is_code():
    text = f"Input:\n{F}\n3\n1 2 3\n{F}\nCode:\n{F}\nprint(sum(map(int, input().split())))\n{F}\nOut:\n{F}\n6\n{F}"
    assert extract_code(text) == "print(sum(map(int, input().split())))\n"


def test_other_languages_are_not_taken():
    assert extract_code(f"{F}cpp\nint main() {{ return 0; }}\n{F}") is None
    assert extract_code(f"{F}bash\necho hi\n{F}") is None


def test_four_backtick_fence_holds_triple_backticks():
    text = f"````python\ns = '''\n{F}\n'''\nprint(s)\n````"
    assert extract_code(text) == f"s = '''\n{F}\n'''\nprint(s)\n"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n",
        "Yes",
        "The answer is 42.",
        "I cannot solve this problem.",
        "NO",
        "x",
        "1 + 2",
        "hello world",
    ],
)
def test_prose_only_gives_none(text):
    assert extract_code(text) is None


def test_whole_text_is_code_without_fences():
    code = "import sys\n\ndef main():\n    print(int(sys.stdin.readline()) + 1)\n\nmain()\n"
    assert extract_code(code) == code
    assert looks_like_code("print(1)")
    assert not looks_like_code("Yes")


def test_chat_messages_and_thinking():
    msgs = [
        {
            "role": "assistant",
            "content": f"<think>maybe\n{F}python\nprint(0)\n{F}\n</think>\n{F}python\nprint(7)\n{F}",
        }
    ]
    assert extract_code(msgs) == "print(7)\n"
    blocks = [
        {"role": "assistant", "content": [{"type": "text", "text": f"{F}python\nprint(8)\n{F}"}]}
    ]
    assert extract_code(blocks) == "print(8)\n"
    assert (
        completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}])
        == "a"
    )
    assert extract_code(None) is None
