"""The URL keys of every view, in one registry: what a deep link to a view may carry.

Each view has one class here. Its `Param`s are the non-widget state (a clicked node, a selected
question) with their parsers and bounds; `WIDGETS` lists the keys its URL-bound widgets use
(`bound(key)`), so the whole URL surface of a view can be read in one place. Cross-page links
(`components.common.links.view_href`) are checked against these, so a link can never carry a
key its target does not read. Keys are short and plain, without a page prefix.

`REGISTRY` is keyed by view name (a dataset's views are declared in `cache.datasets`); a
dataset's view without a class of its own reads the keys every view reads (`ViewKeys`).
"""

from __future__ import annotations

from analysis.playground.policies import url_keys as policy_url_keys
from cache.datasets import DATASETS, MARS_FILES
from cache.datasets import view_names as dataset_view_names
from components.common.url_state import Param, int_in, parse_bool, safe_token

DEFAULT_MARS_FILE = "DeepSeek-8B/aime25_deepseek.parquet"


class ParasonKeys:
    """`/parason`."""

    UUID = Param("uuid", None, parse=safe_token(80))
    NODE = Param("node", None, parse=safe_token(120))
    RL_PROMPT = Param("rlp", None, parse=int_in(0, 10**12))  # the RL prompt open, by its index
    # light controls (`url_radio`, `url_selectbox`) above the tabs
    SUBSET = Param("subset", "sft-1x", parse=safe_token(16))
    COUNTER = Param("counter", "estimate", parse=safe_token(16))
    # Browse's sort (the label shown, as before) and its switches
    SORT = Param("sort", "file order", parse=safe_token(40))
    DESC = Param("desc", False, parse=parse_bool)
    GROWN = Param("grown", False, parse=parse_bool)
    # 1x vs 8x: one pair or all pairs; the DAG and chart tabs: Plotly on "zoom"
    PAIRS = Param("pairs", "one pair", parse=safe_token(16), choices=("one pair", "all pairs"))
    ZOOM = Param("zoom", False, parse=parse_bool)
    RLQ = Param("rlq", "", parse=safe_token(300))  # the RL tab's search
    # the tabs (`view`), subset and counter; the filter bar; Browse's sort and grid switch; RL's search
    WIDGETS: tuple[str, ...] = (
        "subset",
        "counter",
        "view",
        "correct",
        "kinds",
        "speedup",
        "warn",
        "q",
        "sort",
        "desc",
        "grown",
        "grid",
        "rlq",
        "rlsrc",
        "rl_grid",  # the RL prompts as a data grid
        "pairs",
        "zoom",  # the DAGs (Trajectory, 1x vs 8x) with Plotly
    )


class MarsKeys:
    """`/mars`: the file is its Hub relpath (`DeepSeek-8B/aime25_deepseek.parquet`)."""

    FILE = Param("file", DEFAULT_MARS_FILE, parse=str, choices=tuple(MARS_FILES))
    QID = Param("qid", None, parse=int_in(0, 10**6))
    TRACE = Param("trace", None, parse=int_in(0, 10**7))
    # Compare models: the benchmark (default: the open file's) and the compared question
    BENCH = Param(
        "bench", None, parse=str, choices=tuple(dict.fromkeys(b for _, b, _ in MARS_FILES.values()))
    )
    CQ = Param("cq", None, parse=int_in(0, 10**6))
    FIGURES_KEY = "mfig"  # the figures of each model's block in the side-by-side table
    PROBE = Param("probe", None, parse=int_in(0, 10**8))  # a probe's token position (a search hit)
    # light controls (`url_switch`, `url_radio`): Plotly "zoom" on any tab; the Curves tab's
    # curves or quantile bands, and its probe markers
    ZOOM = Param("zoom", False, parse=parse_bool)
    SHOW = Param("show", "curves", choices=("curves", "quantile bands"))
    MARKERS = Param("markers", True, parse=parse_bool)
    # the Single trace tab's smoothing (tokens averaged; 1 = raw)
    ZSMOOTH = Param("zsmooth", 64, parse=int, choices=(1, 16, 64, 256))
    # tab; Curves: traces shown, token window, curves/bands, probe markers and their encoding,
    # DeepConf threshold, Plotly zoom; Single trace: smoothing, probe encoding; both: the trace
    # filters (verdict, final answers, length range, which confidence and its range)
    WIDGETS: tuple[str, ...] = (
        "view",
        "n",
        "win",
        "show",
        "markers",
        "probes_by",
        "policy",
        "zoom",
        "zsmooth",
        "verdict",
        "answer",
        "length",
        "conf_by",
        "conf",
        "models_grid",  # Compare models' tables as data grids
        "mfig",  # Compare models: the figures per model
        "data_grid",  # the Data tab's traces as a data grid
    )


class PlaygroundKeys:
    """`/playground`: shares `file` and `qid` with `/mars`, so a link carries over both ways."""

    FILE = MarsKeys.FILE
    QID = MarsKeys.QID
    # policy, its parameters (every registered policy's widget keys, `PolicyDecl.url_keys`),
    # frontier markers, bootstrap settings, the replayed iteration, the result tabs (`view`)
    WIDGETS: tuple[str, ...] = (
        "policy",
        *policy_url_keys(),
        "others",
        "budget",
        "iters",
        "warmup",
        "window",
        "seed",
        "preview",
        "it",
        "view",
        "vs",  # the Compare tab's policy B
        "perq_grid",  # the Questions tab's table as a data grid
        "ref_grid",  # the Reference tab's tables as data grids
    )

    @staticmethod
    def policy_keys() -> tuple[str, ...]:
        """The parameter keys of the policies registered now (a policy registered after this
        module was imported included)."""
        return policy_url_keys()


class FineproofsKeys:
    """`/fineproofs`."""

    PROBLEM = Param("problem", None, parse=safe_token(64))
    SAMPLE = Param("sample", None, parse=int_in(0, 10_000_000))
    PREFIX = Param("prefix", None, parse=int_in(1, 100_000))
    # tabs; Overview: sort, order, sources, grade range, columns, colour, rows, page, data grid;
    # Trace: curve x axis, text colour; the page's Benjamini-Hochberg switch for the drop flags
    WIDGETS: tuple[str, ...] = (
        "view", "sort", "desc", "src", "grade", "axis", "color", "rows", "page", "grid", "tx",
        "tcolor", "fdr",
    )  # fmt: skip


class CasebookKeys:
    """`/casebook`: the open case and collection; `present`/`step` run a presentation."""

    CASE = Param("case", None, parse=safe_token(64))
    COLLECTION = Param("collection", None, parse=safe_token(64))
    WIDGETS: tuple[str, ...] = (
        "tab", "ds", "tag", "verdict", "author", "q", "sort", "desc", "deleted",
    )  # fmt: skip


class LensesKeys:
    """`/lenses`: the chosen lens (`cache.lenses.Lens.id`) and the file of its dataset it runs on
    (a Hub-relative file; each lens checks it against its dataset's files)."""

    LENS = Param("lens", None, parse=safe_token(64))
    FILE = Param("file", None, parse=safe_token(200))
    PAGE = Param("page", 1, parse=int_in(1, 10**6))  # the items table's page
    WIDGETS: tuple[str, ...] = ()


class SearchKeys:
    """`/search`: the query, its switches and filters; `page` is the result page (1-based)."""

    PAGE = Param("page", 1, parse=int_in(1, 100_000))
    # query, regex switch, case switch; filters: datasets, subsets/files, correctness
    WIDGETS: tuple[str, ...] = ("q", "rx", "cs", "ds", "grp", "ok")


SOURCE_FIELDS = ("kind", "repo", "rev", "path")  # the sidebar's keys: `src_<dataset>_<field>`


def global_keys() -> tuple[str, ...]:
    """Keys every view reads: each dataset's source in the sidebar, a running presentation, a
    running triage queue, the sidebar's "Render maths" switch, a search hit's marked text, a
    case's item to bring into sight."""
    sources = tuple(f"src_{d}_{f}" for d in DATASETS for f in SOURCE_FIELDS)
    return (*sources, "present", "step", "triage", "tpos", "maths", "hl", "hlcs", "focus")


class ViewKeys:
    """A view with no state of its own (the sidebar's source keys apply everywhere)."""

    WIDGETS: tuple[str, ...] = ()


class HomeKeys(ViewKeys):
    """`/home`."""


# registry: each view's URL-key class, keyed by view name
REGISTRY: dict[str, type] = {
    "home": HomeKeys,
    "parason": ParasonKeys,
    "mars": MarsKeys,
    "playground": PlaygroundKeys,
    "fineproofs": FineproofsKeys,
    "lenses": LensesKeys,
    "search": SearchKeys,
    "casebook": CasebookKeys,
}


def keys_of(view: str) -> set[str]:
    """Every URL key `view` reads: its Params and its bound widgets."""
    cls = REGISTRY.get(view, ViewKeys if view in dataset_view_names() else None)
    if cls is None:
        raise KeyError(view)
    params = {v.key for v in vars(cls).values() if isinstance(v, Param)}
    for base in cls.__mro__:
        params |= {v.key for v in vars(base).values() if isinstance(v, Param)}
    live = cls.policy_keys() if cls is PlaygroundKeys else ()
    return params | set(cls.WIDGETS) | set(live) | set(global_keys())


def widget_keys(view: str) -> set[str]:
    """The URL keys of `view` that widgets are bound to (Python may not set these)."""
    cls = REGISTRY.get(view, ViewKeys if view in dataset_view_names() else None)
    if cls is None:
        return set()
    live = cls.policy_keys() if cls is PlaygroundKeys else ()
    return set(cls.WIDGETS) | set(live)
