from typing import *
import heapq


class Solution:
    def findCrossingTime(self, n: int, k: int, time: List[List[int]]) -> int:
        def key(i):
            return (-(time[i][0] + time[i][2]), -i)

        left_wait = [key(i) for i in range(k)]
        heapq.heapify(left_wait)
        right_wait = []
        left_work = []
        right_work = []
        cur = 0
        remaining = n
        while True:
            while left_work and left_work[0][0] <= cur:
                _, i = heapq.heappop(left_work)
                heapq.heappush(left_wait, key(i))
            while right_work and right_work[0][0] <= cur:
                _, i = heapq.heappop(right_work)
                heapq.heappush(right_wait, key(i))
            if right_wait:
                i = -heapq.heappop(right_wait)[1]
                cur += time[i][2]
                if remaining == 0 and not right_wait and not right_work:
                    return cur
                heapq.heappush(left_work, (cur + time[i][3], i))
            elif remaining > 0 and left_wait:
                i = -heapq.heappop(left_wait)[1]
                cur += time[i][0]
                remaining -= 1
                heapq.heappush(right_work, (cur + time[i][1], i))
            else:
                nxt = float("inf")
                if right_work:
                    nxt = right_work[0][0]
                if remaining > 0 and left_work:
                    nxt = min(nxt, left_work[0][0])
                cur = max(cur, nxt)
