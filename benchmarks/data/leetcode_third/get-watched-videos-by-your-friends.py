from typing import *
from collections import Counter


class Solution:
    def watchedVideosByFriends(self, watchedVideos: List[List[str]], friends: List[List[int]], id: int, level: int) -> List[str]:
        seen = {id}
        frontier = [id]
        for _ in range(level):
            nxt = []
            for u in frontier:
                for v in friends[u]:
                    if v not in seen:
                        seen.add(v)
                        nxt.append(v)
            frontier = nxt
        cnt = Counter()
        for u in frontier:
            cnt.update(watchedVideos[u])
        return sorted(cnt, key=lambda v: (cnt[v], v))
