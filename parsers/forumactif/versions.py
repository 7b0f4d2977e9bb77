"""Per-version selectors of Forumactif's six default topic templates, as data.

Source: the default ``viewtopic_body`` of each version (Etana dump, fixtures
``templates/<version>/default_tpl``), REPORT.md section 3 and README section 4.
All XPaths are relative to the post container (the element with class
``post--{ID}``). Slots:

* ``message``: the message (``{postrow.displayed.MESSAGE}``);
* ``author``: tried in order, the first non-empty text is the displayed name;
* ``date``: the element whose text holds the date (extracted with a regex, since
  phpBB3/Invision print ``par NAME DATE`` as one text node);
* ``signature``: signature wrapper, left out of the own content.

The edit line is found by its wording anywhere in the container (its slot differs
per version and AwesomeBB puts it inside the message slot).
"""

from __future__ import annotations

from dataclasses import dataclass

from parsers.forumactif.htmltext import has_class


@dataclass(frozen=True)
class VersionSpec:
    """Selectors of one display version (see module docstring)."""

    tpl_used: str
    name: str
    message: str
    author: tuple[str, ...]
    date: str
    signature: str


_SIG_DIV = f".//div[{has_class('signature_div')}]"

VERSIONS: dict[str, VersionSpec] = {
    spec.tpl_used: spec
    for spec in (
        VersionSpec(
            tpl_used="subsilver",
            name="phpBB2",
            message=f".//div[{has_class('postbody')}]/div[1]",
            author=(f".//span[{has_class('name')}]",),
            date=f".//span[{has_class('postdetails')} and not({has_class('poster-profile')})]",
            signature=_SIG_DIV,
        ),
        VersionSpec(
            tpl_used="prosilver",
            name="phpBB3",
            message=f".//div[{has_class('content')}]/div[1]",
            author=(
                f".//p[{has_class('author')}]//a[contains(@href, '/u')]",
                f".//div[{has_class('postprofile')}]//dt//strong",
            ),
            date=f".//p[{has_class('author')}]",
            signature=_SIG_DIV,
        ),
        VersionSpec(
            tpl_used="punbb",
            name="PunBB",
            message=f".//div[{has_class('entry-content')}]/div[not({has_class('vote')})][1]/div[1]",
            author=(f".//h4[{has_class('username')}]",),
            date=f".//div[{has_class('posthead')}]/h2",
            signature=f".//div[{has_class('sig-content')}]",
        ),
        VersionSpec(
            tpl_used="invision",
            name="Invision",
            message=(
                f".//div[{has_class('post-entry')}]"
                f"/div[not({has_class('clear')}) and not({has_class('vote')})][1]"
            ),
            author=(
                f".//p[{has_class('author')}]//a[contains(@href, '/u')]",
                f".//dl[{has_class('postprofile-details')}]/dt",
            ),
            date=f".//p[{has_class('author')}]",
            signature=_SIG_DIV,
        ),
        VersionSpec(
            tpl_used="modernbb",
            name="ModernBB",
            message=f".//div[{has_class('content')}]/div[1]",
            author=(f".//div[{has_class('postprofile-name')}]",),
            date=f".//div[{has_class('topic-date')}]",
            signature=_SIG_DIV,
        ),
        VersionSpec(
            tpl_used="awesomebb",
            name="AwesomeBB",
            message=f".//div[{has_class('post-content')}]",
            author=(f".//span[{has_class('post-author-name')}]",),
            date=f".//span[{has_class('post-date')}]",
            signature=f".//div[{has_class('post-signature')}]",
        ),
    )
}

#: DOM signals of the default ``overall_header`` when ``_userdata`` is missing
#: (REPORT.md section 1), as (tpl_used, XPath) tried in order.
DOM_SIGNALS: tuple[tuple[str, str], ...] = (
    ("prosilver", "//body[@id='phpbb']"),
    ("modernbb", "//body[@id='modernbb']"),
    ("punbb", "//*[@id='pun-intro']"),
    ("invision", "//*[@id='ipbwrapper']"),
    ("subsilver", f"//*[{has_class('bodylinewidth')}]"),
    ("awesomebb", "//*[@id='dimmer']"),
)
