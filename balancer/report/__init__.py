"""The HTML report: figures (:mod:`balancer.report.figures`) as inline SVG, rendered into one self-contained page.

Called, the package renders a run's or a comparison's page: ``balancer.report(result, path)`` is
:func:`balancer.api.report` (:mod:`balancer._callable`).
"""

from balancer._callable import make_callable
from balancer.report.render import build_context, render_html, render_report

__all__ = ["build_context", "render_html", "render_report"]

make_callable(__name__)
