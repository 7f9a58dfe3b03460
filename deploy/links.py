"""nbgitpuller links to every lesson, for a teacher's syllabus page on a JupyterHub.

One link opens a lesson in JupyterLab, the other as an app (Voilà), for every lesson of
every language edition (notebooks/, notebooks/zh/, notebooks/ru/), the contents page
first. A click clones the course into the learner's home (a folder named after the
repository, ``dplearn/``), or pulls the teacher's changes into it without overwriting the
learner's own, then opens the page.

    bash tasks.sh links --hub https://hub.example.edu [--repository URL] [--branch main]
    python deploy/links.py --hub https://hub.example.edu --format tsv

Only the standard library: a teacher runs it without installing the course.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: The course's repository and the branch a class pulls (or a branch of a term's own).
REPOSITORY = "https://github.com/dplearn/dplearn"
BRANCH = "main"
#: Each edition's folder under notebooks/ ("" for English) and its name in its own language.
EDITIONS = {"en": ("", "English"), "zh": ("zh", "中文"), "ru": ("ru", "Русский")}
CONTENTS = "index.ipynb"


def clone_directory(repository):
    """The folder nbgitpuller clones repository into: its name, without ".git"."""
    return repository.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git")


def pull_link(hub, notebook, *, app=False, repository=REPOSITORY, branch=BRANCH, directory=None):
    """The nbgitpuller link that pulls the course and opens one notebook.

    Args:
      hub: the hub's address, such as "https://hub.example.edu" (a path prefix is kept).
      notebook: the notebook's path in the repository, such as "notebooks/zh/index.ipynb".
      app: open it as a Voilà app instead of in JupyterLab.
      repository: the git repository a learner's home gets a clone of.
      branch: the branch pulled.
      directory: the clone's folder in the learner's home; the repository's name by default.

    Returns:
      The link, its query's values percent-encoded.
    """
    default_directory = clone_directory(repository)
    directory = directory or default_directory
    page = f"{directory}/{notebook}"
    query = {
        "repo": repository,
        "branch": branch,
        "urlpath": f"voila/render/{page}" if app else f"lab/tree/{page}",
    }
    if directory != default_directory:
        query["targetpath"] = directory
    encoded = urllib.parse.urlencode(query, quote_via=urllib.parse.quote, safe="")
    return f"{hub.rstrip('/')}/hub/user-redirect/git-pull?{encoded}"


def edition_notebooks(folder):
    """The contents page, then the lessons in their order, of one edition's folder."""
    lessons = sorted(folder.glob("[0-9][0-9]-*.ipynb"))
    return [folder / CONTENTS, *lessons]


def notebook_title(path):
    """The notebook's first "# " heading, or its file name."""
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] == "markdown":
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return path.name


def course_links(hub, **link_options):
    """{edition code: [(notebook path, title, JupyterLab link, app link)]} for every edition.

    Args:
      hub: the hub's address.
      **link_options: repository, branch and directory, as for ``pull_link``.
    """
    links = {}
    for code, (subfolder, _) in EDITIONS.items():
        folder = NOTEBOOKS / subfolder
        if not (folder / CONTENTS).is_file():
            continue
        rows = []
        for path in edition_notebooks(folder):
            notebook = path.relative_to(ROOT).as_posix()
            rows.append(
                (
                    notebook,
                    notebook_title(path),
                    pull_link(hub, notebook, **link_options),
                    pull_link(hub, notebook, app=True, **link_options),
                )
            )
        links[code] = rows
    return links


def markdown(links):
    """A syllabus page's section per edition: a table of lessons with both links."""
    lines = []
    for code, rows in links.items():
        lines += [f"## {EDITIONS[code][1]}", "", "| Lesson | JupyterLab | App |", "|---|---|---|"]
        for _, title, lab, app in rows:
            title = re.sub(r"\|", r"\\|", title)
            lines.append(f"| {title} | [open]({lab}) | [open]({app}) |")
        lines.append("")
    return "\n".join(lines)


def tsv(links):
    """One line per notebook: edition, notebook path, JupyterLab link, app link."""
    lines = ["edition\tnotebook\tjupyterlab\tapp"]
    for code, rows in links.items():
        lines += [f"{code}\t{notebook}\t{lab}\t{app}" for notebook, _, lab, app in rows]
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hub", required=True, help="the hub's address, https://hub.example.edu")
    parser.add_argument("--repository", default=REPOSITORY, help=f"default {REPOSITORY}")
    parser.add_argument("--branch", default=BRANCH, help=f"the branch pulled, default {BRANCH}")
    parser.add_argument("--directory", help="the clone's folder in a home (the repository's name)")
    parser.add_argument("--format", choices=("markdown", "tsv"), default="markdown")
    arguments = parser.parse_args(argv)
    if not re.match(r"^https?://[^/\s]+", arguments.hub):
        parser.error(f"--hub must be an http(s) address, got {arguments.hub!r}")
    links = course_links(
        arguments.hub,
        repository=arguments.repository,
        branch=arguments.branch,
        directory=arguments.directory,
    )
    print((markdown if arguments.format == "markdown" else tsv)(links), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
