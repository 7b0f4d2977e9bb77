"""Publishing: the poster (exactly-once declarations), the owls (private messages), rendering
from the jinja2 templates in ``templates/<language>/``. See docs/architecture.md."""
