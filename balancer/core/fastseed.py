"""Per-game generators in compiled code, identical to :func:`balancer.core.seeding.game_rngs`.

A run seeds game ``i`` with ``SeedSequence(run_seed, spawn_key=(i,))`` and gives the game's own
chance child ``(i, 0)`` and the agents child ``(i, 1)``, each a PCG64 ``Generator``. In Python that
costs tens of microseconds per game, more than a whole fast game. Here the same derivation runs in
numba: numpy's SeedSequence hashing (``mix_entropy`` and ``generate_state``) and PCG64's seeding
(``pcg_setseq_128_srandom_r``) are reproduced word for word, and the resulting 128-bit state and
increment are written straight into the state of a Generator object made once per chunk
(:class:`ChunkGenerators`), so that the game code keeps drawing from an ordinary numpy Generator
with exactly the numbers it would have drawn from a freshly seeded one.

The write goes through a numpy view of the bit generator's C state (``pcg64_state``: a pointer to
``{state, inc}`` as two little-endian 128-bit integers, then ``has_uint32``). Tests compare every
derived state with numpy's own for many seeds and indices.
"""

from __future__ import annotations

import ctypes

import numba as nb
import numpy as np

_M32 = np.uint64(0xFFFFFFFF)
INIT_A, MULT_A = np.uint64(0x43B0D7E5), np.uint64(0x931E8875)
INIT_B, MULT_B = np.uint64(0x8B51F9DD), np.uint64(0x58F38DED)
MIX_MULT_L, MIX_MULT_R = np.uint64(0xCA01F9DD), np.uint64(0x4973F715)
XSHIFT = np.uint64(16)
POOL = 4
PCG_MULT_HI, PCG_MULT_LO = np.uint64(2549297995355413924), np.uint64(4865540595714422341)


@nb.njit(cache=True, inline="always")
def _hashmix(value, hash_const):
    """numpy's SeedSequence hashmix on uint32 values held in uint64; returns (value, hash_const)."""
    value = (value ^ hash_const) & _M32
    hash_const = (hash_const * MULT_A) & _M32
    value = (value * hash_const) & _M32
    value ^= value >> XSHIFT
    return value, hash_const


@nb.njit(cache=True, inline="always")
def _mix(x, y):
    result = (MIX_MULT_L * x - MIX_MULT_R * y) & _M32
    return result ^ (result >> XSHIFT)


@nb.njit(cache=True)
def _words(value, out, n):
    """Append ``value``'s 32-bit words (little-endian; [0] for 0) to ``out[n:]``; returns the new n."""
    if value == 0:
        out[n] = 0
        return n + 1
    while value > 0:
        out[n] = value & _M32
        value >>= np.uint64(32)
        n += 1
    return n


@nb.njit(cache=True)
def seed_state(run_seed, game_index, child, out):
    """``SeedSequence(run_seed, spawn_key=(game_index, child)).generate_state(4, np.uint64)`` into
    ``out`` (uint64[4]). ``run_seed`` and ``game_index`` are non-negative and below 2**63."""
    entropy = np.zeros(12, np.uint64)
    n = _words(np.uint64(run_seed), entropy, 0)
    if n < POOL:
        n = POOL  # the run entropy is padded to the pool size when a spawn key follows
    n = _words(np.uint64(game_index), entropy, n)
    n = _words(np.uint64(child), entropy, n)
    pool = np.zeros(POOL, np.uint64)
    h = INIT_A
    for i in range(POOL):
        pool[i], h = _hashmix(entropy[i] if i < n else np.uint64(0), h)
    for i_src in range(POOL):
        for i_dst in range(POOL):
            if i_src != i_dst:
                v, h = _hashmix(pool[i_src], h)
                pool[i_dst] = _mix(pool[i_dst], v)
    for i_src in range(POOL, n):
        for i_dst in range(POOL):
            v, h = _hashmix(entropy[i_src], h)
            pool[i_dst] = _mix(pool[i_dst], v)
    hb = INIT_B
    for w in range(8):
        v = pool[w % POOL] ^ hb
        hb = (hb * MULT_B) & _M32
        v = (v * hb) & _M32
        v ^= v >> XSHIFT
        if w % 2 == 0:
            out[w // 2] = v
        else:
            out[w // 2] |= v << np.uint64(32)


@nb.njit(cache=True, inline="always")
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product of two uint64."""
    a_lo, a_hi = a & _M32, a >> np.uint64(32)
    b_lo, b_hi = b & _M32, b >> np.uint64(32)
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    cross = (lo_lo >> np.uint64(32)) + (hi_lo & _M32) + lo_hi
    return a_hi * b_hi + (hi_lo >> np.uint64(32)) + (cross >> np.uint64(32))


@nb.njit(cache=True, inline="always")
def _step(s_hi, s_lo, i_hi, i_lo):
    """PCG64's LCG step, state * multiplier + increment (mod 2**128); returns (hi, lo)."""
    hi = _mulhi(s_lo, PCG_MULT_LO) + s_lo * PCG_MULT_HI + s_hi * PCG_MULT_LO
    lo = s_lo * PCG_MULT_LO
    lo2 = lo + i_lo
    carry = np.uint64(1) if lo2 < lo else np.uint64(0)
    return hi + i_hi + carry, lo2


@nb.njit(cache=True)
def pcg64_words(words, out):
    """PCG64 seeded from ``words`` (``generate_state(4, uint64)``): its state and increment as
    ``out`` = [state low, state high, inc low, inc high] (uint64[4]), the memory layout of numpy's
    ``pcg64_random_t``."""
    s_hi, s_lo = words[0], words[1]
    i_hi = (words[2] << np.uint64(1)) | (words[3] >> np.uint64(63))
    i_lo = (words[3] << np.uint64(1)) | np.uint64(1)
    st_hi, st_lo = _step(np.uint64(0), np.uint64(0), i_hi, i_lo)
    lo = st_lo + s_lo
    carry = np.uint64(1) if lo < st_lo else np.uint64(0)
    st_hi, st_lo = _step(st_hi + s_hi + carry, lo, i_hi, i_lo)
    out[0], out[1], out[2], out[3] = st_lo, st_hi, i_lo, i_hi


@nb.njit(cache=True)
def seed_game(run_seed, game_index, chance_state, chance_flag, agent_state, agent_flag, scratch):
    """Put the two generators of a chunk in the state that ``game_rngs(game_seed(run_seed, i))``
    would give: ``*_state`` are the uint64[4] views of :class:`ChunkGenerators`, ``*_flag`` the
    int32[1] views of their buffered-half flags; ``scratch`` uint64[4]."""
    seed_state(run_seed, game_index, 0, scratch)
    pcg64_words(scratch, chance_state)
    chance_flag[0] = 0
    seed_state(run_seed, game_index, 1, scratch)
    pcg64_words(scratch, agent_state)
    agent_flag[0] = 0


class _PCG64State(ctypes.Structure):
    _fields_ = [
        ("pcg_state", ctypes.POINTER(ctypes.c_uint64)),
        ("has_uint32", ctypes.c_int),
        ("uinteger", ctypes.c_uint32),
    ]


def _views(bit_generator: np.random.PCG64) -> tuple[np.ndarray, np.ndarray]:
    """(uint64[4] view of the PCG64 state and increment, int32[1] view of its has_uint32 flag)."""
    raw = _PCG64State.from_address(bit_generator.ctypes.state_address)
    state = np.ctypeslib.as_array(raw.pcg_state, shape=(4,))
    flag = np.ctypeslib.as_array(
        ctypes.cast(ctypes.addressof(raw) + _PCG64State.has_uint32.offset, ctypes.POINTER(ctypes.c_int32)), shape=(1,)
    )
    return state, flag


class ChunkGenerators:
    """Two Generators (the game's chance, the agents' choices) re-seeded per game in compiled code.

    ``chance`` and ``agents`` are ordinary numpy Generators to pass to compiled game code;
    ``views`` are the arrays :func:`seed_game` writes (keep this object alive while they are used).
    """

    def __init__(self) -> None:
        self._chance_bits, self._agent_bits = np.random.PCG64(0), np.random.PCG64(0)
        self.chance = np.random.Generator(self._chance_bits)
        self.agents = np.random.Generator(self._agent_bits)
        chance_state, chance_flag = _views(self._chance_bits)
        agent_state, agent_flag = _views(self._agent_bits)
        self.views = (chance_state, chance_flag, agent_state, agent_flag)
        self.scratch = np.zeros(4, np.uint64)

    def seed(self, run_seed: int, game_index: int) -> None:
        """From Python (tests, slow paths): the state of game ``game_index`` of run ``run_seed``."""
        seed_game(np.uint64(run_seed), np.uint64(game_index), *self.views, self.scratch)
