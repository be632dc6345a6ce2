"""The HTML report: matplotlib figures as inline SVG, rendered into one self-contained page."""

from balancer.report.render import build_context, render_html, render_report

__all__ = ["build_context", "render_html", "render_report"]
