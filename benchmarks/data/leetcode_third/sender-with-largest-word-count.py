from typing import *
from collections import defaultdict


class Solution:
    def largestWordCount(self, messages: List[str], senders: List[str]) -> str:
        cnt = defaultdict(int)
        for msg, who in zip(messages, senders):
            cnt[who] += msg.count(" ") + 1
        return max(cnt, key=lambda w: (cnt[w], w))
