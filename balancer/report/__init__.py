"""The HTML report: figures (:mod:`balancer.report.figures`) as inline SVG, rendered into one self-contained page.

The library call that writes a run's or a comparison's page is :func:`balancer.write_report`
(:func:`balancer.api.write_report`).
"""

from balancer.report.render import build_context, render_html, render_report

__all__ = ["build_context", "render_html", "render_report"]
