"""The course on Zero to JupyterHub, checked without a cluster, Docker or a network.

deploy/z2jh/config.yaml, merged into the pinned chart's defaults as helm merges them,
passes the chart's own schema and logs nobody in until an authenticator is chosen; its
memory sizes sit above the measured peaks (deploy/z2jh/memory.json) with the margin it
states; the image recipe installs the lock and nothing else; the nbgitpuller links of
every lesson and edition are well formed and open files that exist; the README's sizing
table is the one the measurement gives.
"""

import copy
import importlib.util
import json
import pathlib
import re
import subprocess
import sys
import urllib.parse

import jsonschema
import pytest
import yaml

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
Z2JH = DEPLOY / "z2jh"
CHART = Z2JH / "chart"
#: The margin the config states on the measured memory.
MARGIN = 1.25
HUB = "https://hub.example.edu"


def load_module(name, path):
    """A module of the repository that is not in a package (deploy/, benchmarks/)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


links = load_module("deploy_links", DEPLOY / "links.py")


def config():
    return yaml.safe_load((Z2JH / "config.yaml").read_text(encoding="utf-8"))


def measured():
    return json.loads((Z2JH / "memory.json").read_text(encoding="utf-8"))


def helm_merge(defaults, values):
    """values over defaults as helm merges them: maps key by key, a null removes the key."""
    merged = copy.deepcopy(defaults)
    for key, value in values.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = helm_merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


def chart_values(values):
    """The values helm validates: the chart's defaults with values merged in."""
    defaults = yaml.safe_load((CHART / "values.yaml").read_text(encoding="utf-8"))
    return helm_merge(defaults, values)


def schema_errors(values):
    schema = json.loads((CHART / "values.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(schema)
    return [
        f"{'.'.join(map(str, error.absolute_path))}: {error.message}"
        for error in validator.iter_errors(chart_values(values))
    ]


def byte_size(value):
    """Bytes of a chart memory size ("544M", "1G": powers of 1024, as JupyterHub reads them)."""
    units = {"K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
    text = str(value).strip()
    if text[-1:] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(float(text))


def memory_limit():
    """The memory limit of a learner's server in the config, in bytes."""
    return byte_size(config()["singleuser"]["memory"]["limit"])


# The chart's values ---------------------------------------------------------------------


def test_config_passes_the_pinned_charts_schema():
    assert schema_errors(config()) == []


def test_the_schema_check_finds_a_misspelt_or_mistyped_value():
    misspelt = helm_merge(config(), {"singleuser": {"memmory": {"limit": "1G"}}})
    mistyped = helm_merge(config(), {"cull": {"timeout": "half an hour"}})
    assert any("memmory" in error for error in schema_errors(misspelt))
    assert any(error.startswith("cull.timeout") for error in schema_errors(mistyped))


def test_the_chart_is_pinned_with_its_licence_and_the_readme_installs_that_version():
    version = (CHART / "VERSION").read_text().strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert "BSD 3-Clause" in (CHART / "LICENSE").read_text()
    for path in (Z2JH / "config.yaml", ROOT / "README.md"):
        # A command continued over lines (in comments too) read as one line.
        text = re.sub(r"\\\n#?\s*", " ", path.read_text())
        commands = re.findall(r"helm upgrade [^\n]*", text)
        installs = [command for command in commands if "--install" in command]
        assert installs, f"{path.name} has no helm upgrade --install command"
        for command in installs:
            assert f"--version {version}" in command, (path.name, command)
            assert "deploy/z2jh/config.yaml" in command, (path.name, command)


def test_nobody_logs_in_until_the_university_chooses_an_authenticator():
    values = config()
    hub_config = values["hub"]["config"]
    # Explicitly null: the chart's own default is the dummy authenticator.
    assert "authenticator_class" in hub_config["JupyterHub"]
    assert hub_config["JupyterHub"]["authenticator_class"] is None
    merged = chart_values(values)["hub"]["config"]
    assert "authenticator_class" not in merged["JupyterHub"]
    assert not any("Dummy" in name for name in merged), merged
    text = (Z2JH / "config.yaml").read_text()
    assert not re.search(r"^\s*(password|admin_users)\s*:", text, re.MULTILINE)


def test_config_sets_what_a_class_of_hundreds_needs():
    values = config()
    singleuser = values["singleuser"]
    assert singleuser["image"]["name"] != "quay.io/jupyterhub/k8s-singleuser-sample"
    assert singleuser["cpu"]["guarantee"] > 0
    assert values["cull"]["enabled"] and values["cull"]["timeout"] > 0
    assert values["prePuller"]["hook"]["enabled"] and values["prePuller"]["continuous"]["enabled"]
    scheduling = values["scheduling"]
    assert scheduling["userScheduler"]["enabled"]
    # Placeholders give way to learners only when pods have priorities.
    assert scheduling["userPlaceholder"]["enabled"] and scheduling["podPriority"]["enabled"]
    assert 0 < values["hub"]["concurrentSpawnLimit"] < 64
    culling = singleuser["extraFiles"]["kernel-culling"]
    assert culling["mountPath"].startswith("/usr/local/etc/jupyter/jupyter_server_config.d/")
    assert culling["data"]["MappingKernelManager"]["cull_idle_timeout"] > 0
    # The default page is the contents page of the clone the start hook and the links make.
    default = singleuser["defaultUrl"]
    directory = links.clone_directory(links.REPOSITORY)
    assert default == f"/lab/tree/{directory}/notebooks/{links.CONTENTS}"
    pull = " ".join(singleuser["lifecycleHooks"]["postStart"]["exec"]["command"])
    assert f"gitpuller {links.REPOSITORY} {links.BRANCH} {directory} || true" in pull


def test_every_block_says_why():
    """A comment just above each top-level block, or above each of its settings."""
    lines = (Z2JH / "config.yaml").read_text().splitlines()
    block_explained = False
    for index, line in enumerate(lines):
        match = re.match(r"^( {0,2})([A-Za-z][\w-]*):", line)
        if not match:
            continue
        explained = index > 0 and lines[index - 1].strip().startswith("#")
        if not match[1]:
            block_explained = explained
        else:
            assert explained or block_explained, f"config.yaml line {index + 1}: {line.strip()}"


# Sizes from the measurement ---------------------------------------------------------------


def test_the_measurement_covers_every_english_lesson():
    lessons = sorted(path.name for path in (ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    results = measured()
    assert sorted(results["lessons"]) == lessons, "run: nice python benchmarks/memory.py --json"
    assert all(result["moved"] > 0 for result in results["lessons"].values())


def test_memory_sizes_sit_above_the_measured_peaks_with_the_margin():
    results = measured()
    server = results["server_peak"]
    largest = max(lesson["peak"] for lesson in results["lessons"].values())
    memory = config()["singleuser"]["memory"]
    # One lesson at a time: what every learner of a class may need at once.
    assert byte_size(memory["guarantee"]) >= (server + largest) * MARGIN
    # The lesson at hand and the previous one, until kernel culling ends it.
    assert byte_size(memory["limit"]) >= (server + 2 * largest) * MARGIN
    assert byte_size(memory["guarantee"]) <= byte_size(memory["limit"])
    text = (Z2JH / "config.yaml").read_text()
    assert f"x {MARGIN}" in text and f"{(MARGIN - 1):.0%}".replace("%", " %") in text


def test_readme_tables_are_the_measurements():
    memory_benchmark = load_module("memory_benchmark", ROOT / "benchmarks" / "memory.py")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for table in (
        memory_benchmark.lesson_table(measured()),
        memory_benchmark.sizing_table(config(), measured()),
    ):
        assert table in readme, "python benchmarks/memory.py --sizing prints the README's tables"
    assert measured()["machine"] in readme


# The image recipe -----------------------------------------------------------------------


def dockerfile_instructions():
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    text = (DEPLOY / "Dockerfile").read_text()
    text = re.sub(r"(?m)^\s*#.*\n", "", text).replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_image_installs_the_lock_and_nothing_else():
    instructions = dockerfile_instructions()
    base = [line.split()[1] for line in instructions if line.startswith("FROM ")]
    assert len(base) == 1 and re.fullmatch(r"python:3\.11-slim-\w+", base[0]), base
    installs = [line for line in instructions if "pip install" in line]
    locked = [line for line in installs if "-r /opt/dplearn/requirements-lock.txt" in line]
    assert len(locked) == 1 and "--require-hashes" in locked[0], installs
    others = [line for line in installs if line not in locked]
    assert all(re.search(r"--no-deps -e /opt/dplearn$", line) for line in others), others
    assert "COPY requirements-lock.txt /opt/dplearn/requirements-lock.txt" in instructions
    apt = " ".join(line for line in instructions if "apt-get install" in line)
    assert "fonts-wqy-microhei" in apt and " git" in apt
    assert "chromium" not in " ".join(instructions).lower()
    assert 'CMD ["jupyterhub-singleuser"]' in instructions


def test_image_copies_files_that_exist_and_only_those_the_build_may_read():
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    allowed = {line[1:] for line in ignore if line.startswith("!")}
    copies = [line.split()[1:-1] for line in dockerfile_instructions() if line.startswith("COPY ")]
    sources = [source for sources in copies for source in sources]
    assert sources, "the Dockerfile copies nothing"
    for source in sources:
        assert (ROOT / source).exists(), source
        assert source in allowed, f"{source} is left out by deploy/Dockerfile.dockerignore"


def test_the_lock_holds_what_the_image_serves():
    from tests.test_repository import locked_versions

    locked = locked_versions()
    for name in ("jupyterhub", "jupyterlab", "voila", "nbgitpuller", "ipympl", "ipywidgets"):
        assert name in locked, f"{name} is not in requirements-lock.txt"


# nbgitpuller links ------------------------------------------------------------------------


def check_link(link, hub=HUB, repository=links.REPOSITORY, branch=links.BRANCH):
    """(mode, notebook path) that a link opens, after checking its form."""
    parts = urllib.parse.urlsplit(link)
    assert f"{parts.scheme}://{parts.netloc}" == hub, link
    assert parts.path == "/hub/user-redirect/git-pull", link
    assert " " not in link and "/" not in parts.query.replace("%2F", ""), link
    query = urllib.parse.parse_qs(parts.query, strict_parsing=True)
    assert set(query) == {"repo", "branch", "urlpath"}, link
    assert query["repo"] == [repository] and query["branch"] == [branch], link
    urlpath = query["urlpath"][0]
    match = re.fullmatch(r"(lab/tree|voila/render)/([^/]+)/(notebooks/.+\.ipynb)", urlpath)
    assert match, urlpath
    assert match[2] == links.clone_directory(repository), urlpath
    assert (ROOT / match[3]).is_file(), f"a link to a missing notebook: {match[3]}"
    return match[1], match[3]


def test_links_open_every_lesson_of_every_edition_in_lab_and_as_an_app():
    found = links.course_links(HUB)
    assert sorted(found) == ["en", "ru", "zh"]
    for code, rows in found.items():
        folder = ROOT / "notebooks" / links.EDITIONS[code][0]
        expected = [folder / "index.ipynb", *sorted(folder.glob("[0-9][0-9]-*.ipynb"))]
        assert [notebook for notebook, *_ in rows] == [
            path.relative_to(ROOT).as_posix() for path in expected
        ]
        for notebook, _, lab, app in rows:
            assert check_link(lab) == ("lab/tree", notebook)
            assert check_link(app) == ("voila/render", notebook)


def test_tasks_links_prints_them_for_a_syllabus_page():
    command = ["bash", "tasks.sh", "links", "--hub", HUB + "/", "--branch", "2027-spring"]
    result = subprocess.run(
        [*command, "--format", "tsv"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split("\t") for line in result.stdout.splitlines()[1:]]
    notebooks = sum(len(rows) for rows in links.course_links(HUB).values())
    assert len(rows) == notebooks
    for _, notebook, lab, app in rows:
        assert check_link(lab, branch="2027-spring") == ("lab/tree", notebook)
        assert check_link(app, branch="2027-spring") == ("voila/render", notebook)
    page = links.markdown(links.course_links(HUB))
    assert page.count("](https://hub.example.edu/hub/user-redirect/git-pull?") == 2 * notebooks


def test_a_clone_folder_of_another_name_is_named_in_the_link():
    link = links.pull_link(HUB, "notebooks/index.ipynb", directory="privacy-course")
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)
    assert query["targetpath"] == ["privacy-course"]
    assert query["urlpath"] == ["lab/tree/privacy-course/notebooks/index.ipynb"]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__]))
