"""Hand-written Parason trajectories for the bundled sample (competition-style maths).

Why a tiny DSL: the same trajectory must render as its sft-1x form and as its sft-8x form (every
pure-Trial stage expanded to 8 branches), so trajectories are written as structure, not text.
A trajectory body is a list of sequential strings and ``B`` blocks; ``render`` adds the tags.
Items are (kind, goal) with kind "S" (Subtask), "T" (Trial) or "O" (untyped ``<Outline>``).
Thread texts are written without their ``N:`` prefix; numbering is added when rendering.

Maths is correct wherever ``correct`` is True; the few incorrect trajectories contain a
visible, realistic slip. ``MALFORMED`` holds raw texts that exercise the parser's warnings
and the UI's escaping.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class B:
    """One <Parallel> block."""

    items: list[tuple[str, str]]
    threads: list[str]
    conclusion: str | None = None
    result: str = "the same value as above"  # used by the 8x expansion's extra Trial branches
    tight: bool = False  # `<Trial>1:` (no space) instead of `<Trial> 1:`; open item tags


@dataclass
class Traj:
    key: str
    question: str
    answer: str
    body: list[str | B]
    content: str
    correct: bool = True
    extra_trials: list[tuple[str, str]] = field(default_factory=list)


_TAG = {"S": "Subtask", "T": "Trial", "O": "Outline"}

# Extra Trial goals/threads for the 8x expansion (the card: extra branches sampled from
# Qwen3-8B, their Trial goals written by another model). `{r}` is the block's result.
EXTRA_TRIALS: list[tuple[str, str]] = [
    (
        "Recompute the key quantity from scratch in a different order.",
        "Starting over and doing the steps in the opposite order, nothing in the argument depends "
        "on the order, so the computation again gives {r}.",
    ),
    (
        "Check the claim on a smaller analogous case first.",
        "On a smaller version of the problem the same method gives the value predicted by the "
        "pattern, which supports the general computation: {r}.",
    ),
    (
        "Attack the stage by a complementary or reverse argument.",
        "Counting or computing the complement instead and subtracting from the whole gives a "
        "consistent total, so the stage result stays {r}.",
    ),
    (
        "Estimate the size of the answer to rule out arithmetic slips.",
        "A rough estimate puts the value in the right range, and the exact arithmetic, done "
        "digit by digit, agrees: {r}.",
    ),
    (
        "Verify each intermediate number with modular arithmetic.",
        "Reducing every intermediate number modulo 9 and comparing residues at each step shows "
        "no inconsistency; the result is {r}.",
    ),
    (
        "Look for a symmetry that gives the result directly.",
        "The setup is symmetric under the obvious swap, and using that symmetry halves the work; "
        "it leads to {r} again.",
    ),
    (
        "Re-derive the formula that was used instead of quoting it.",
        "Deriving the formula from first principles instead of recalling it gives the same "
        "expression, and substituting the numbers yields {r}.",
    ),
]


def _num(k: int, tight: bool) -> str:
    return f"{k}:" if tight else f" {k}:"


def render_block(b: B, expand_to: int = 0) -> str:
    """Tags for one block; `expand_to` > 0 appends extra Trial branches to pure-Trial blocks."""
    items = list(b.items)
    threads = list(b.threads)
    if expand_to and all(k == "T" for k, _ in items) and len(items) < expand_to:
        j = 0
        while len(items) < expand_to:
            goal, th = EXTRA_TRIALS[j % len(EXTRA_TRIALS)]
            items.append(("T", goal))
            threads.append(th.format(r=b.result))
            j += 1
    out = ["<Parallel>\n<Outlines>\n"]
    for k, (kind, goal) in enumerate(items, 1):
        tag = _TAG[kind]
        close = "" if (b.tight and kind == "T" and k % 2 == 0) else f"</{tag}>"
        out.append(f"<{tag}>{_num(k, b.tight)} {goal}{close}\n")
    out.append("</Outlines>\n")
    for k, th in enumerate(threads, 1):
        out.append(f"<Thread>\n{k}: {th}\n</Thread>")
    out.append("\n")
    if b.conclusion:
        out.append(f"<Conclusion>\n{b.conclusion}\n</Conclusion>\n")
    out.append("</Parallel>")
    return "".join(out)


def render(t: Traj, expand_to: int = 0) -> str:
    """response_reasoning (the think body, no think tags)."""
    parts: list[str] = []
    for piece in t.body:
        parts.append(render_block(piece, expand_to) if isinstance(piece, B) else piece)
    return "\n".join(parts)


# ------------------------------------------------------------------------------------------
HAND: list[Traj] = [
    Traj(
        "divisors-3600",
        "How many positive divisors does $3600$ have?",
        "45",
        [
            "We need the prime factorisation of 3600 and then the divisor-count formula "
            "$d(n) = \\prod (e_i + 1)$. Since $3600 = 36 \\cdot 100$, only the primes 2, 3 and 5 "
            "can appear. I will find each exponent separately.",
            B(
                [
                    ("S", "Find the exponent of 2 in 3600."),
                    ("S", "Find the exponent of 3 in 3600."),
                    ("S", "Find the exponent of 5 in 3600."),
                ],
                [
                    "3600 / 2 = 1800, / 2 = 900, / 2 = 450, / 2 = 225, and 225 is odd. So the "
                    "exponent of 2 is 4.",
                    "Removing the 2s leaves 225 = 9 * 25. 225 / 3 = 75, 75 / 3 = 25, and 25 is "
                    "not divisible by 3. The exponent of 3 is 2.",
                    "225 / 5 = 45, 45 / 5 = 9, and 9 is not divisible by 5, so the exponent of 5 "
                    "is 2.",
                ],
                conclusion="$3600 = 2^4 \\cdot 3^2 \\cdot 5^2$ (check: 16 * 9 * 25 = 3600).",
            ),
            "The number of divisors is $(4+1)(2+1)(2+1) = 5 \\cdot 3 \\cdot 3 = 45$.",
        ],
        "Since $3600 = 2^4 \\cdot 3^2 \\cdot 5^2$, it has $(4+1)(2+1)(2+1) = \\boxed{45}$ "
        "positive divisors.",
    ),
    Traj(
        "pow2-100-mod7",
        "Find the remainder when $2^{100}$ is divided by $7$.",
        "2",
        [
            "Powers of 2 modulo 7 should be periodic. Two natural ways: find the cycle directly, "
            "or use Fermat's little theorem.",
            B(
                [
                    ("T", "List powers of 2 mod 7 until they repeat."),
                    ("T", "Use Fermat's little theorem, 2^6 = 1 mod 7."),
                ],
                [
                    "2^1 = 2, 2^2 = 4, 2^3 = 8 = 1 (mod 7). The cycle length is 3. Since "
                    "100 = 3 * 33 + 1, 2^100 = (2^3)^33 * 2 = 2 (mod 7).",
                    "By Fermat, 2^6 = 1 (mod 7). 100 = 6 * 16 + 4, so 2^100 = 2^4 = 16 = 2 "
                    "(mod 7).",
                ],
                result="2^100 = 2 (mod 7)",
                tight=True,
            ),
            "Both attempts agree: the remainder is 2.",
        ],
        "Since $2^3 \\equiv 1 \\pmod 7$ and $100 = 3\\cdot 33 + 1$, $2^{100} \\equiv 2$. "
        "The remainder is $\\boxed{2}$.",
    ),
    Traj(
        "multiples-3-or-5",
        "Find the sum of all integers $n$ with $1 \\le n \\le 100$ that are divisible by $3$ or $5$.",
        "2418",
        [
            "Inclusion-exclusion: S = S(3) + S(5) - S(15), where S(k) is the sum of the multiples "
            "of k up to 100. The three sums are independent.",
            B(
                [
                    ("S", "Sum of multiples of 3 up to 100."),
                    ("S", "Sum of multiples of 5 up to 100."),
                    ("S", "Sum of multiples of 15 up to 100."),
                ],
                [
                    "There are floor(100/3) = 33 multiples: 3(1 + ... + 33) = 3 * 33 * 34 / 2 = "
                    "3 * 561 = 1683.",
                    "There are 20 multiples: 5(1 + ... + 20) = 5 * 210 = 1050.",
                    "There are floor(100/15) = 6 multiples: 15(1 + ... + 6) = 15 * 21 = 315.",
                ],
            ),
            "So S = 1683 + 1050 - 315 = 2418. Let me double check in two different ways.",
            B(
                [
                    ("T", "Recompute S(3) by pairing terms from both ends."),
                    ("T", "Check the method on the range 1..15 by hand."),
                ],
                [
                    "Pair 3 + 99 = 102, 6 + 96 = 102, ..., 48 + 54 = 102: 16 pairs, plus the "
                    "middle term 51. 16 * 102 + 51 = 1683, as before, so 2418 stands.",
                    "For 1..15: multiples of 3 or 5 are 3, 5, 6, 9, 10, 12, 15, sum 60. Formula: "
                    "3 * 15 + 5 * 6 - 15 * 1 = 45 + 30 - 15 = 60. The method works.",
                ],
                conclusion="Both checks support 2418.",
                result="2418",
            ),
        ],
        "By inclusion-exclusion, $1683 + 1050 - 315 = \\boxed{2418}$.",
    ),
    Traj(
        "cubes-from-symmetric",
        "Real numbers $a, b$ satisfy $a + b = 5$ and $ab = 3$. Find $a^3 + b^3$.",
        "80",
        [
            "Symmetric functions: a^3 + b^3 can be written through a + b and ab.",
            B(
                [
                    ("T", "Use a^3 + b^3 = (a+b)^3 - 3ab(a+b)."),
                    ("T", "Use a^3 + b^3 = (a+b)(a^2 - ab + b^2)."),
                    ("T", "Solve for a and b explicitly."),
                ],
                [
                    "(a+b)^3 = 125 and 3ab(a+b) = 3 * 3 * 5 = 45, so a^3 + b^3 = 125 - 45 = 80.",
                    "a^2 + b^2 = (a+b)^2 - 2ab = 25 - 6 = 19, so a^2 - ab + b^2 = 16 and "
                    "a^3 + b^3 = 5 * 16 = 80.",
                    "a, b are roots of x^2 - 5x + 3 = 0, x = (5 ± sqrt(13))/2. Each root "
                    "satisfies x^3 = 5x^2 - 3x = 5(5x - 3) - 3x = 22x - 15, so a^3 + b^3 = "
                    "22(a + b) - 30 = 110 - 30 = 80.",
                ],
                conclusion="All three approaches give 80.",
                result="80",
            ),
        ],
        "$a^3+b^3 = (a+b)^3 - 3ab(a+b) = 125 - 45 = \\boxed{80}$.",
    ),
    Traj(
        "mississippi",
        "In how many distinct ways can the letters of the word MISSISSIPPI be arranged?",
        "34650",
        [
            "This is a multiset permutation count. First get the letter multiplicities.",
            B(
                [
                    ("S", "Count the letters of MISSISSIPPI and check they total 11."),
                    ("S", "Compute 11! for later use."),
                ],
                [
                    "M-I-S-S-I-S-S-I-P-P-I: M appears 1 time, I appears 4 times, S 4 times, "
                    "P 2 times. 1 + 4 + 4 + 2 = 11 letters.",
                    "11! = 39916800.",
                ],
            ),
            "The answer is 11! / (1! 4! 4! 2!). I will compute it two ways.",
            B(
                [
                    ("T", "Divide 11! by 4! 4! 2!."),
                    ("T", "Choose positions letter by letter with binomial coefficients."),
                ],
                [
                    "4! 4! 2! = 24 * 24 * 2 = 1152. 39916800 / 1152 = 34650.",
                    "Place the I's: C(11,4) = 330. Then the S's among the remaining 7: "
                    "C(7,4) = 35. Then the P's among 3: C(3,2) = 3. M goes in the last spot. "
                    "330 * 35 * 3 = 34650.",
                ],
                result="34650",
            ),
        ],
        "The count is $\\frac{11!}{4!\\,4!\\,2!} = \\boxed{34650}$.",
    ),
    Traj(
        "trailing-zeros-100",
        "How many zeros are at the end of $100!$?",
        "24",
        [
            "Trailing zeros come from factors 10 = 2 * 5, and 5s are scarcer than 2s.",
            B(
                [
                    ("T", "Use Legendre's formula for the exponent of 5."),
                    ("T", "Count multiples of 5 and of 25 directly."),
                ],
                [
                    "v_5(100!) = floor(100/5) + floor(100/25) + floor(100/125) = 20 + 4 + 0 = 24.",
                    "Multiples of 5 up to 100: 20 of them, each gives one 5. The multiples of 25 "
                    "(25, 50, 75, 100) give one extra each: 4. Total 24.",
                ],
                result="24",
            ),
        ],
        "The exponent of 5 in $100!$ is $20 + 4 = 24$, so $100!$ ends in $\\boxed{24}$ zeros.",
    ),
    Traj(
        "last-two-digits-7-2024",
        "What are the last two digits of $7^{2024}$?",
        "1",
        [
            "We need 7^2024 mod 100.",
            B(
                [
                    ("S", "Compute the first few powers of 7 modulo 100."),
                    ("T", "Use Euler's theorem with phi(100) = 40."),
                    ("T", "Use the order of 7 modulo 100 directly."),
                ],
                [
                    "7^1 = 7, 7^2 = 49, 7^3 = 343 = 43, 7^4 = 7 * 43 = 301 = 1 (mod 100).",
                    "phi(100) = 40 and gcd(7, 100) = 1, so 7^40 = 1. 2024 = 40 * 50 + 24, so "
                    "7^2024 = 7^24 = (7^4)^6 = 1 (mod 100).",
                    "7^4 = 2401 = 1 (mod 100), so the order divides 4. 2024 = 4 * 506, so "
                    "7^2024 = 1 (mod 100).",
                ],
                conclusion="7^2024 = 1 (mod 100): the last two digits are 01.",
            ),
        ],
        "Because $7^4 = 2401 \\equiv 1 \\pmod{100}$ and $4 \\mid 2024$, the last two digits are "
        "01, i.e. $7^{2024} \\equiv \\boxed{1} \\pmod{100}$.",
    ),
    Traj(
        "heron-13-14-15",
        "Find the area of a triangle with side lengths $13$, $14$ and $15$.",
        "84",
        [
            "Two standard methods: Heron's formula, or drop an altitude.",
            B(
                [
                    ("T", "Heron's formula."),
                    ("T", "Altitude onto the side of length 14."),
                ],
                [
                    "s = (13 + 14 + 15)/2 = 21. Area = sqrt(21 * 8 * 7 * 6) = sqrt(7056) = 84.",
                    "The altitude h onto side 14 splits it into x (next to side 13) and 14 - x "
                    "(next to side 15), so x^2 + h^2 = 169 and (14 - x)^2 + h^2 = 225. "
                    "Subtracting: 196 - 28x = 56, x = 5, h = 12. Area = 14 * 12 / 2 = 84.",
                ],
                conclusion="Both give 84.",
                result="84",
            ),
        ],
        "With $s=21$, Heron's formula gives $\\sqrt{21\\cdot 8\\cdot 7\\cdot 6} = \\boxed{84}$.",
    ),
    Traj(
        "phi-1000",
        "How many integers $n$ with $1 \\le n \\le 1000$ are relatively prime to $1000$?",
        "400",
        [
            "1000 = 2^3 * 5^3, so n is coprime to 1000 iff it is divisible by neither 2 nor 5. "
            "Count with inclusion-exclusion.",
            B(
                [
                    ("O", "Count the multiples of 2 in 1..1000."),
                    ("O", "Count the multiples of 5 in 1..1000."),
                    ("O", "Count the multiples of 10 in 1..1000."),
                ],
                [
                    "1000 / 2 = 500 multiples of 2.",
                    "1000 / 5 = 200 multiples of 5.",
                    "1000 / 10 = 100 multiples of 10.",
                ],
            ),
            "Coprime count = 1000 - 500 - 200 + 100 = 400. This matches phi(1000) = 1000 (1 - 1/2)"
            "(1 - 1/5) = 400.",
        ],
        "$\\varphi(1000) = 1000\\cdot\\tfrac12\\cdot\\tfrac45 = \\boxed{400}$.",
    ),
    Traj(
        "crt-3-5-7",
        "Find the smallest positive integer $n$ such that $n \\equiv 2 \\pmod 3$, "
        "$n \\equiv 3 \\pmod 5$ and $n \\equiv 2 \\pmod 7$.",
        "23",
        [
            "Combine the congruences step by step.",
            B(
                [
                    ("S", "Combine n = 2 (mod 3) and n = 2 (mod 7)."),
                    ("S", "List the residues mod 5 of the candidates that the first step allows."),
                ],
                [
                    "Both say n - 2 is divisible by 3 and 7, so n = 2 (mod 21).",
                    "The candidates are 2, 23, 44, 65, 86 (mod 105); mod 5 they are 2, 3, 4, 0, 1.",
                ],
            ),
            "We need the candidate that is 3 mod 5.",
            B(
                [
                    ("T", "Try n = 2."),
                    ("T", "Try n = 23."),
                    ("T", "Try n = 44."),
                ],
                [
                    "2 mod 5 = 2, not 3. Rejected.",
                    "23 = 4 * 5 + 3, so 23 = 3 (mod 5). Accepted.",
                    "44 mod 5 = 4. Rejected.",
                ],
                result="n = 23",
            ),
            "Final check of 23:",
            B(
                [
                    ("S", "23 mod 3."),
                    ("S", "23 mod 5."),
                    ("S", "23 mod 7."),
                ],
                [
                    "23 = 7 * 3 + 2, remainder 2. Good.",
                    "23 = 4 * 5 + 3, remainder 3. Good.",
                    "23 = 3 * 7 + 2, remainder 2. Good.",
                ],
                conclusion="All three congruences hold, and no smaller positive candidate exists.",
            ),
        ],
        "The solutions are $n \\equiv 23 \\pmod{105}$; the smallest is $\\boxed{23}$.",
    ),
    Traj(
        "euler-poly-12",
        "For how many integers $n$ with $1 \\le n \\le 12$ is $n^2 + n + 41$ prime?",
        "12",
        [
            "Euler's polynomial is famous for primes, but let me check each value.",
            B(
                [("S", f"Check whether {n}^2 + {n} + 41 is prime.") for n in range(1, 13)],
                [
                    f"{n}^2 + {n} + 41 = {n * n + n + 41}; it has no prime factor up to "
                    f"sqrt({n * n + n + 41}) < {int((n * n + n + 41) ** 0.5) + 1}, so it is prime."
                    for n in range(1, 13)
                ],
                conclusion="Values 43, 47, 53, 61, 71, 83, 97, 113, 131, 151, 173, 197: all prime.",
            ),
        ],
        "All twelve values are prime, so the answer is $\\boxed{12}$.",
    ),
    Traj(
        "max-xy-linear",
        "Positive reals $x, y$ satisfy $x + 2y = 10$. Find the maximum of $xy$.",
        "\\frac{25}{2}",
        [
            "Optimisation under a linear constraint.",
            B(
                [
                    ("T", "AM-GM on x and 2y."),
                    ("T", "Substitute x = 10 - 2y and maximise the quadratic."),
                ],
                [
                    "x * 2y <= ((x + 2y)/2)^2 = 25, so xy <= 25/2, with equality at x = 2y = 5.",
                    "f(y) = (10 - 2y) y = 10y - 2y^2, vertex at y = 10/4 = 5/2, f = 25 - 25/2 = "
                    "25/2.",
                ],
                result="25/2",
            ),
        ],
        "The maximum is $\\boxed{\\frac{25}{2}}$, at $x = 5$, $y = \\frac52$.",
    ),
    Traj(
        "no-consecutive-subsets",
        "How many subsets of $\\{1, 2, \\ldots, 10\\}$ contain no two consecutive integers? "
        "(The empty set counts.)",
        "144",
        [
            "Let a_n be the number of such subsets of {1..n}.",
            B(
                [
                    ("O", "Derive a recurrence for a_n."),
                    ("O", "Count by the number k of chosen elements."),
                ],
                [
                    "Either n is not chosen (a_{n-1} ways) or it is, and then n-1 is not "
                    "(a_{n-2} ways). a_1 = 2, a_2 = 3, then 5, 8, 13, 21, 34, 55, 89, 144: a_10 = 144.",
                    "Choosing k non-adjacent elements of 10 can be done in C(11-k, k) ways: "
                    "1 + 10 + 36 + 56 + 35 + 6 = 144.",
                ],
            ),
        ],
        "Both the Fibonacci recurrence and $\\sum_k \\binom{11-k}{k}$ give $\\boxed{144}$.",
    ),
    Traj(
        "dice-sum-7",
        "Two fair six-sided dice are rolled. What is the probability that the sum is $7$?",
        "\\frac{1}{6}",
        [
            "There are 36 equally likely outcomes.",
            B(
                [
                    ("T", "List the favourable pairs."),
                    ("T", "Condition on the first die."),
                ],
                [
                    "(1,6), (2,5), (3,4), (4,3), (5,2), (6,1): 6 pairs out of 36, i.e. 1/6.",
                    "Whatever the first die shows, exactly one value of the second die makes 7, "
                    "so the probability is 1/6.",
                ],
                result="1/6",
            ),
        ],
        "The probability is $\\frac{6}{36} = \\boxed{\\frac{1}{6}}$.",
    ),
    Traj(
        "not-div-7-11",
        "How many positive integers less than $1000$ are divisible by neither $7$ nor $11$?",
        "779",
        [
            "Inclusion-exclusion on 1..999.",
            B(
                [
                    ("S", "Count multiples of 7 below 1000."),
                    ("S", "Count multiples of 11 below 1000."),
                    ("S", "Count multiples of 77 below 1000."),
                ],
                [
                    "floor(999/7) = 142 (7 * 142 = 994).",
                    "floor(999/11) = 90 (11 * 90 = 990).",
                    "floor(999/77) = 12 (77 * 12 = 924, 77 * 13 = 1001).",
                ],
            ),
            "Now combine the counts.",
            B(
                [
                    ("T", "Subtract the union from 999."),
                    ("T", "Multiply densities as a sanity estimate."),
                ],
                [
                    "Union = 142 + 90 - 12 = 220, so 999 - 220 = 779.",
                    "999 * (6/7) * (10/11) is about 778.4, close to 779. Consistent.",
                ],
                result="779",
            ),
            "Check the boundary products once more.",
            B(
                [
                    ("S", "Confirm 7 * 143 > 999."),
                    ("S", "Confirm 11 * 91 > 999."),
                ],
                [
                    "7 * 143 = 1001 > 999, so 142 is right.",
                    "11 * 91 = 1001 > 999, so 90 is right.",
                ],
            ),
            "And a small-case sanity check of the method.",
            B(
                [
                    ("T", "Apply the same count below 100."),
                    ("T", "List the multiples of 7 or 11 below 100 directly."),
                ],
                [
                    "floor(99/7) = 14, floor(99/11) = 9, floor(99/77) = 1: 99 - 14 - 9 + 1 = 77.",
                    "14 multiples of 7, 9 of 11, and 77 is in both: 22 numbers, 99 - 22 = 77.",
                ],
                conclusion="The method is confirmed on the small case.",
                result="77 below 100, so the method holds",
            ),
        ],
        "$999 - (142 + 90 - 12) = \\boxed{779}$.",
    ),
    Traj(
        "sum-to-2024-mod-1000",
        "Find the remainder when $1 + 2 + \\cdots + 2024$ is divided by $1000$.",
        "300",
        [
            "Use the triangular number formula.",
            B(
                [
                    ("T", "Compute 2024 * 2025 / 2 exactly."),
                    ("T", "Work modulo 1000 throughout."),
                ],
                [
                    "2024 * 2025 / 2 = 1012 * 2025 = 2024000 + 25300 = 2049300, remainder 300.",
                    "1012 = 12 and 2025 = 25 (mod 1000): 12 * 25 = 300 (mod 1000).",
                ],
                result="300",
            ),
        ],
        "$\\frac{2024\\cdot 2025}{2} = 2049300$, so the remainder is $\\boxed{300}$.",
    ),
    Traj(
        "lattice-circle-25",
        "How many points with integer coordinates lie on the circle $x^2 + y^2 = 25$?",
        "12",
        [
            "By symmetry check x = 0, ..., 5 and then reflect.",
            B(
                [("S", f"Find integer y with {x}^2 + y^2 = 25.") for x in range(6)],
                [
                    "y^2 = 25, y = ±5: 2 points.",
                    "y^2 = 24, not a square: none.",
                    "y^2 = 21, not a square: none.",
                    "y^2 = 16, y = ±4.",
                    "y^2 = 9, y = ±3.",
                    "y^2 = 0, y = 0.",
                ],
            ),
            "x = 0 gives 2 points; x = ±3 give 2 each (4); x = ±4 give 2 each (4); x = ±5 give 1 "
            "each (2). Total 2 + 4 + 4 + 2 = 12.",
        ],
        "The points are $(\\pm5,0),(0,\\pm5),(\\pm3,\\pm4),(\\pm4,\\pm3)$: $\\boxed{12}$.",
    ),
    Traj(
        "angles-12-gon-wrong",
        "What is the sum of the interior angles of a convex $12$-gon, in degrees?",
        "1800",
        [
            "The formula involves n = 12.",
            B(
                [
                    ("T", "Triangulate from one vertex."),
                    ("T", "Use n times 180 degrees."),
                ],
                [
                    "From one vertex we get n - 2 = 10 triangles: 10 * 180 = 1800.",
                    "Each vertex contributes 180 degrees: 12 * 180 = 2160.",
                ],
                result="the angle sum",
            ),
            "The second approach looks more direct, so I will go with 2160.",
        ],
        "The sum is $\\boxed{2160}$ degrees.",
        correct=False,
    ),
    Traj(
        "trailing-zeros-125-wrong",
        "How many zeros are at the end of $125!$?",
        "31",
        [
            "Count the factors of 5.",
            B(
                [
                    ("S", "Multiples of 5 up to 125."),
                    ("S", "Multiples of 25 up to 125."),
                ],
                [
                    "125 / 5 = 25.",
                    "125 / 25 = 5.",
                ],
            ),
            "So 25 + 5 = 30 factors of 5.",
        ],
        "$125!$ ends in $\\boxed{30}$ zeros.",
        correct=False,
    ),
]


def digit_sum_45() -> Traj:
    """The 40+ branch trajectory (readability / performance target): 45 Subtask branches."""
    threads = []
    for n in range(1, 46):
        d = sum(int(c) for c in str(n))
        threads.append(f"The digits of {n} are {', '.join(str(n))}; their sum is {d}.")
    return Traj(
        "digit-sums-1-45",
        "Find the sum of the digit sums of all integers from $1$ to $45$.",
        "279",
        [
            "Compute every digit sum separately and add them up.",
            B(
                [("S", f"Digit sum of {n}.") for n in range(1, 46)],
                threads,
                conclusion="By decades: 45 + 55 + 65 + 75 + 39 = 279.",
            ),
            "Check: 1-9 give 45; 10-19 give 10 + 45 = 55; 20-29 give 65; 30-39 give 75; "
            "40-45 give 6 * 4 + 15 = 39. Total 279.",
        ],
        "The total is $\\boxed{279}$.",
    )


# ------------------------------------------------------------------------------------------
# Malformed trajectories: (key, question, response_reasoning, response_content, correctness).
MALFORMED: list[tuple[str, str, str, str, bool]] = [
    (
        "malformed-unclosed-thread",
        "Find the number of positive divisors of $2^{10} \\cdot 3^{5}$.",
        "Use the divisor formula.\n<Parallel>\n<Outlines>\n<Subtask>1: exponent part for 2"
        "</Subtask>\n<Subtask>2: exponent part for 3</Subtask>\n</Outlines>\n<Thread>\n1: "
        "The factor 2^10 contributes 10 + 1 = 11 choices.\n</Thread><Thread>\n2: The factor 3^5 "
        "contributes 5 + 1 = 6 choices, and then the total is 11 * 6 = 6",
        "",
        False,
    ),
    (
        "malformed-numbering-gap",
        "Compute $1^2 + 2^2 + \\cdots + 10^2$.",
        "Split the sum into parts.\n<Parallel>\n<Outlines>\n<Subtask>1: squares 1..4</Subtask>\n"
        "<Subtask>2: squares 5..7</Subtask>\n<Subtask>4: squares 8..10</Subtask>\n</Outlines>\n"
        "<Thread>\n1: 1 + 4 + 9 + 16 = 30\n</Thread><Thread>\n2: 25 + 36 + 49 = 110\n</Thread>"
        "\nstray text between threads\n<Thread>\n4: 64 + 81 + 100 = 245\n</Thread><Thread>\n"
        "the extra thread has no number\n</Thread>\n</Parallel>\nTotal 30 + 110 + 245 = 385, "
        "matching n(n+1)(2n+1)/6 = 10 * 11 * 21 / 6 = 385.",
        "The sum is $\\boxed{385}$.",
        True,
    ),
    (
        "malformed-html-script",
        "Is $a<b>c$ possible for reals with $a<b$ and $b>c$? Give the value of $\\max(2,3)$.",
        "Note a<b>c is just two inequalities. <script>alert(1)</script>\n<Parallel>\n<Outlines>\n"
        "<Trial>1: try <b>bold</b> html</Trial>\n<Trial>2: try an image tag</Trial>\n</Outlines>\n"
        "<Thread>\n1: <script>alert('xss')</script> max(2,3) = 3 since 2<3.\n</Thread><Thread>\n"
        "2: <img src=x onerror=alert(1)> & also </Parallel> inside text? 3 > 2.\n</Thread>\n"
        "</Parallel>\nSo the value is 3.",
        "<i>Answer</i>: $\\boxed{3}$ <script>alert(2)</script>",
        True,
    ),
]
