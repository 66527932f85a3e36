"""Check the links of the built HTML reference that stay inside it: every
href/src to a local file must name a file that exists, and every #fragment an
id (or name) on that page. External links are checked by `sphinx -b linkcheck`
(which needs the network); this one works offline.

    python scripts/check_links.py build/docs/html
"""
import html.parser
import os
import sys
import urllib.parse


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        for key in ("id", "name"):
            if attrs.get(key):
                self.ids.add(attrs[key])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])


def parse(path):
    page = Page()
    with open(path, encoding="utf-8") as f:
        page.feed(f.read())
    return page


def main(argv):
    root = argv[0] if argv else "build/docs/html"
    pages = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(folder, name)
                pages[os.path.normpath(path)] = parse(path)
    broken, checked = [], 0
    for path, page in sorted(pages.items()):
        for link in page.links:
            url = urllib.parse.urlsplit(link)
            if url.scheme or link.startswith("//") or link.startswith("mailto:"):
                continue
            checked += 1
            target = os.path.normpath(os.path.join(os.path.dirname(path), urllib.parse.unquote(url.path))) \
                if url.path else path
            if not os.path.exists(target):
                broken.append("%s: %s (no file)" % (path, link))
            elif url.fragment and target.endswith(".html"):
                ids = pages[target].ids if target in pages else parse(target).ids
                if url.fragment not in ids:
                    broken.append("%s: %s (no such anchor)" % (path, link))
    for line in broken:
        print(line)
    print("%d pages, %d internal links checked, %d broken" % (len(pages), checked, len(broken)))
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
