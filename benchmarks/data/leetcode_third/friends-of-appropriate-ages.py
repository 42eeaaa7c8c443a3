from typing import *


class Solution:
    def numFriendRequests(self, ages: List[int]) -> int:
        cnt = [0] * 121
        for a in ages:
            cnt[a] += 1
        total = 0
        for ax in range(1, 121):
            if not cnt[ax]:
                continue
            for ay in range(1, ax + 1):
                if not cnt[ay]:
                    continue
                if ay <= 0.5 * ax + 7:
                    continue
                if ay > 100 and ax < 100:
                    continue
                if ax == ay:
                    total += cnt[ax] * (cnt[ax] - 1)
                else:
                    total += cnt[ax] * cnt[ay]
        return total
