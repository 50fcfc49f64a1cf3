"""The scheduler of one replica under continuous batching, as current engines run it (vLLM V1,
SGLang, TensorRT-LLM), stepped by events so that a request costs a few Python operations.

Each engine step the scheduler (``policy``):

* ``decode-first`` (vLLM V1 with chunked prefill): every running sequence decodes one token; the
  rest of the token budget (``max_num_batched_tokens`` minus the decode tokens) goes to prompt
  chunks, first of partly prefilled requests, then of waiting ones in arrival order, while fewer
  than ``max_num_seqs`` run and the KV cache has room;
* ``prefill-first`` (vLLM V0, SGLang's default): a step with prompt work runs prompts only (the
  whole budget), decodes pause; otherwise a decode step;
* ``static``: a batch of up to ``max_num_seqs`` waiting requests starts when the replica is idle,
  is prefilled in one step and decodes until its last request finishes.

KV admission (``admission``): ``prompt`` (vLLM, paged): a request is admitted while its chunk's
blocks fit with 1 % of the cache to spare (vLLM's watermark) and no request was preempted in the
same step (vLLM V1 schedules no waiting request after a preemption); every running sequence holds
its tokens plus at most ``block_size − 1`` of a partly filled block; when the cache cannot hold one more token per running sequence, the most recently
admitted request is preempted (recompute: it re-queues at the head and later prefills its prompt
and the tokens generated so far). ``reserve`` (TensorRT-LLM's GUARANTEED_NO_EVICT): a request is
admitted only when its whole isl + osl fits, rounded up to blocks; never preempted.

Between events (an arrival that can be admitted, a request finishing, the cache filling) the batch
does not change, so k decode steps of b sequences at mean context m take
k · decode(b, m + (k − 1)/2) (decode time is affine in context within a grid cell) and are taken at
once. The step times come from :class:`infersim.serving.step_grid.StepTable`.
"""
from __future__ import annotations

import heapq
import math
from collections import deque
from dataclasses import dataclass

from infersim.errors import choice, require

POLICIES = ("decode-first", "prefill-first", "static")
ADMISSIONS = ("prompt", "reserve")
WAITING, PREFILL, DECODE, DONE = 0, 1, 2, 3
WATERMARK = 0.01    # share of the KV cache kept free when admitting (vLLM's block-manager watermark)


@dataclass(frozen=True)
class Scheduler:
    """Engine scheduler knobs (vLLM's names); defaults are vLLM V1's on one GPU node."""

    policy: str = "decode-first"
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    block_size: int = 16
    admission: str = "prompt"

    def __post_init__(self) -> None:
        choice("policy", self.policy, POLICIES)
        choice("admission", self.admission, ADMISSIONS)
        for f in ("max_num_seqs", "max_num_batched_tokens", "block_size"):
            v = getattr(self, f)
            require(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 1 << 24,
                    f"{f} must be an integer in 1..{1 << 24}, got {v!r}")


class ReplicaSim:
    """The event loop of one replica; :meth:`run` fills the per-request lists and a timeline."""

    def __init__(self, table, sched: Scheduler, arrival_ns, isl, osl, cached, concurrency=None):
        self.tb, self.sc = table, sched
        n = self.n = len(isl)
        self.arr, self.isl, self.osl, self.cached = list(arrival_ns), list(isl), list(osl), list(cached)
        self.budget = sched.max_num_batched_tokens if sched.policy != "static" else 1 << 40
        self.chunk = [min(sched.max_num_batched_tokens, i - c) if sched.policy != "static" else i - c
                      for i, c in zip(self.isl, self.cached)]
        bs = sched.block_size
        self.reserved = [-(-(i + o) // bs) * bs for i, o in zip(self.isl, self.osl)]
        self.frag = bs - 1
        self.reserve = sched.admission == "reserve" or sched.policy == "static"
        self.preempted_now = False
        self.stall = 0.0
        self.cap = table.kv_capacity_tokens
        self.watermark = int(WATERMARK * self.cap)
        self.state, self.ver, self.gen = [WAITING] * n, [0] * n, [0] * n
        self.t_sched, self.t_first, self.t_done = [math.nan] * n, [math.nan] * n, [math.nan] * n
        self.t_last, self.npre = [0.0] * n, [0] * n
        self.pf_left, self.pf_done = [0] * n, [0] * n
        self.fk, self.dj = [0] * n, [0] * n
        self.t, self.K, self.b, self.S0 = 0.0, 0, 0, 0
        self.kv_pf, self.kv_res = 0, 0
        self.waiting: deque = deque()
        self.pf: list = []                # prefilling rids in admission order
        self.heap: list = []              # (finish K, version, rid) of decoders
        self.stack: list = []             # (rid, version) of running requests, admission order
        self.nxt, self.issued, self.closed = 0, 0, concurrency is not None
        if self.closed:
            self.issued = min(concurrency, n)
            self.waiting.extend(range(self.issued))
            self.nxt = n
        self.n_done, self.area, self.tokens = 0, 0.0, 0
        self.itl_v, self.itl_w = [], []
        self.tl_t, self.tl_wait, self.tl_run, self.tl_kv, self.tl_tok = [], [], [], [], []
        self.preempt_log: list = []       # (t, KV used, tokens needed, capacity) at each preemption

    # -- bookkeeping -------------------------------------------------------------------------
    def used(self) -> int:
        if self.reserve:
            return self.kv_res
        return self.S0 + self.b * self.K + self.kv_pf + (self.b + len(self.pf)) * self.frag

    def running(self) -> int:
        return self.b + len(self.pf)

    def _arrivals(self) -> None:
        arr, t, n = self.arr, self.t, self.n
        while self.nxt < n and arr[self.nxt] <= t:
            self.area += t - arr[self.nxt]        # time in system before the step boundary saw it
            self.waiting.append(self.nxt)
            self.nxt += 1

    def _advance(self, dt: float, k: int, tokens: int) -> None:
        """Move time by ``dt`` (``k`` decode steps), integrating the requests in the system."""
        self.area += (len(self.waiting) + self.running()) * dt
        self.t += dt
        self.K += k
        self.tokens += tokens

    def _record(self) -> None:
        self.tl_t.append(self.t)
        self.tl_wait.append(len(self.waiting))
        self.tl_run.append(self.running())
        self.tl_kv.append(self.used())
        self.tl_tok.append(self.tokens)

    # -- transitions -------------------------------------------------------------------------
    def _admit(self, rid: int) -> None:
        self.state[rid] = PREFILL
        start = self.cached[rid]
        self.pf_done[rid], self.pf_left[rid] = start, self.isl[rid] + self.gen[rid] - start
        self.kv_pf += start
        if self.reserve:
            self.kv_res += self.reserved[rid]
        if self.t_sched[rid] != self.t_sched[rid]:          # NaN: first time scheduled
            self.t_sched[rid] = self.t
        self.pf.append(rid)
        self.stack.append((rid, self.ver[rid]))

    def _prefilled(self, rid: int) -> None:
        """The prompt is in the cache: the step produced the next token."""
        self.kv_pf -= self.pf_done[rid]
        self.gen[rid] += 1
        if self.t_first[rid] != self.t_first[rid]:
            self.t_first[rid] = self.t
        elif self.npre[rid]:
            self.itl_v.append(self.t - self.t_last[rid])    # the stall of a preempted request
            self.itl_w.append(1)
        left = self.osl[rid] - self.gen[rid]
        if left <= 0:
            self._finish(rid)
            return
        self.state[rid] = DECODE
        ctx = self.isl[rid] + self.gen[rid]
        self.dj[rid] = ctx - self.K
        self.S0 += ctx - self.K
        self.b += 1
        self.fk[rid] = self.K + left
        heapq.heappush(self.heap, (self.K + left, self.ver[rid], rid))

    def _finish(self, rid: int) -> None:
        if self.state[rid] == DECODE:
            self.S0 -= self.dj[rid]
            self.b -= 1
        if self.reserve:
            self.kv_res -= self.reserved[rid]
        self.state[rid] = DONE
        self.t_done[rid] = self.t
        self.n_done += 1
        if self.closed and self.issued < self.n:          # the client sends its next request
            nxt = self.issued
            self.arr[nxt] = self.t
            self.waiting.append(nxt)
            self.issued += 1

    def _pop_finished(self) -> None:
        heap, K = self.heap, self.K
        while heap and heap[0][0] <= K:
            _, v, rid = heapq.heappop(heap)
            if v == self.ver[rid] and self.state[rid] == DECODE:
                self.gen[rid] = self.osl[rid]
                self._finish(rid)

    def _preempt(self, need: int) -> bool:
        """Evict the most recently admitted running request (recompute); False if none runs."""
        while self.stack:
            rid, v = self.stack.pop()
            if v != self.ver[rid] or self.state[rid] not in (PREFILL, DECODE):
                continue
            self.preempt_log.append((self.t, self.used(), need, self.cap))
            if self.state[rid] == DECODE:
                self.gen[rid] = self.osl[rid] - (self.fk[rid] - self.K)
                self.S0 -= self.dj[rid]
                self.b -= 1
            else:
                self.kv_pf -= self.pf_done[rid]
                self.pf.remove(rid)
            self.ver[rid] += 1
            self.npre[rid] += 1
            self.t_last[rid] = self.t
            self.state[rid] = WAITING
            self.waiting.appendleft(rid)
            return True
        return False

    # -- one step ----------------------------------------------------------------------------
    def _plan(self) -> list:
        """The prompt segments (rid, tokens) of the next step; admits waiting requests."""
        sc, prompt_mode = self.sc, not self.reserve
        if sc.policy == "static" and self.running():
            return []
        left = self.budget - (self.b if sc.policy == "decode-first" else 0)
        room = self.cap - self.used() - self.b if prompt_mode else 1 << 62
        segs = []
        for rid in self.pf:
            n = min(self.pf_left[rid], left, room)
            if n <= 0:
                break
            segs.append((rid, n))
            left, room = left - n, room - n
        waiting = self.waiting
        while waiting and left > 0 and self.running() < sc.max_num_seqs and not self.preempted_now:
            rid = waiting[0]
            n = min(self.isl[rid] + self.gen[rid] - self.cached[rid], left)
            if prompt_mode:
                if room - self.frag - n < (self.watermark if self.running() else 0):
                    break
                room -= self.frag
            elif self.kv_res + self.reserved[rid] > self.cap:
                break
            waiting.popleft()
            self._admit(rid)
            segs.append((rid, n))
            left, room = left - n, room - n
        return segs

    def _prefill_step(self, segs: list) -> None:
        """One step with prompt segments (and, under decode-first, every decoder)."""
        tb = self.tb
        b = self.b if self.sc.policy == "decode-first" else 0
        dt = tb.decode_ns(b, (self.S0 + b * self.K) / b) if b else tb.t_w_ns
        for rid, n in segs:
            dt += n * tb.token_ns(self.chunk[rid], self.pf_done[rid])
        done = [rid for rid, n in segs if n == self.pf_left[rid]]
        self._advance(dt, 1 if b else 0, b + len(done))
        if b:
            self.itl_v.append(dt)
            self.itl_w.append(b)
        elif self.b:
            self.stall += dt              # prefill-first: the decoders wait for this step
        for rid, n in segs:
            self.pf_done[rid] += n
            self.pf_left[rid] -= n
            self.kv_pf += n
        for rid in done:
            self.pf.remove(rid)
            self._prefilled(rid)
        self._pop_finished()

    def _decode_steps(self) -> None:
        """k decode steps at once, up to the next event."""
        heap, ver, state = self.heap, self.ver, self.state
        while heap and (heap[0][1] != ver[heap[0][2]] or state[heap[0][2]] != DECODE):
            heapq.heappop(heap)
        b, tb = self.b, self.tb
        k = heap[0][0] - self.K
        if not self.reserve:
            k = min(k, (self.cap - self.used()) // b)
        m0 = (self.S0 + b * self.K) / b
        t0 = tb.decode_ns(b, m0)
        if not self.waiting and self.nxt < self.n and self.sc.policy != "static":
            gap = self.arr[self.nxt] - self.t               # steps until the arrival is seen
            s = tb.decode_slope(b, m0)
            if s > 0:
                j = (-(t0 - s / 2) + math.sqrt((t0 - s / 2) ** 2 + 2 * s * gap)) / s
            else:
                j = gap / t0
            k = min(k, max(math.ceil(j - 1e-9), 1))
        dt = k * tb.decode_ns(b, m0 + (k - 1) / 2)
        self._advance(dt, k, b * k)
        self.itl_v.append(dt / k)
        self.itl_w.append(b * k)
        if self.stall:                    # the first token after prompt-only steps came late
            self.itl_v[-1], self.itl_w[-1] = dt / k, b * (k - 1)
            self.itl_v.append(dt / k + self.stall)
            self.itl_w.append(b)
            self.stall = 0.0
        self._pop_finished()

    def _step(self) -> bool:
        """One event; False when every request is done."""
        self._arrivals()
        self.preempted_now = False
        if not self.reserve:
            while self.b and self.used() + self.b > self.cap:      # one token per decoder must fit
                self.preempted_now = self._preempt(self.b)
        segs = self._plan()
        if segs:
            self._prefill_step(segs)
        elif self.b:
            self._decode_steps()
        elif self.pf:                 # prompts stalled on a full cache with nothing decoding
            self._preempt(1)
        elif self.nxt < self.n:
            self.t = max(self.t, self.arr[self.nxt])
        else:
            return False
        self._record()
        return True

    def run(self) -> "ReplicaSim":
        require(self.n == 0 or max(self.reserved) + self.sc.block_size <= self.cap,
                f"a request of {max(self.reserved)} tokens does not fit the KV cache of one replica "
                f"({self.cap:,} tokens)")
        while self.n_done < self.n:
            if not self._step():
                break
        return self
