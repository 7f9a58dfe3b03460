#!/usr/bin/env bash
# One entry point for every set-up step, so that a fresh clone needs one command per job.
#   bash tasks.sh lab       install what is missing, open the lessons in JupyterLab
#   bash tasks.sh test      install what is missing, run the whole test suite on every core
#   bash tasks.sh lock      resolve pyproject.toml again into requirements-lock.txt (exact
#                           versions with hashes) and pin environment.yml and binder/ to it
#   bash tasks.sh present [en|zh|ru]  install what is missing, serve the lessons as Voilà
#                           apps, the chosen edition's preheated (English by default)
#   bash tasks.sh translate extract the words of the lessons and the package, merge them into
#                           the catalogs in locale/, write notebooks/zh and notebooks/ru
#                           (--check: change nothing, exit 1 if anything is out of date)
#   bash tasks.sh figures   install what is missing, export every figure as PNG and SVG
#   bash tasks.sh bench     install what is missing, print the benchmark figures
#                           (--classroom: live lessons in Voilà, cold and preheated;
#                            --hub [--learners N]: N learners on a local hub)
#   bash tasks.sh navigation  rewrite the lessons' previous/contents/next bars
#   bash tasks.sh hub       install what is missing, run a local JupyterHub with the course
#   bash tasks.sh proxy     install only the hub's proxy (configurable-http-proxy, npm)
#   bash tasks.sh links --hub URL  print the nbgitpuller links of every lesson and edition,
#                           in JupyterLab and as apps, for a hub's syllabus page
#                           (--repository URL --branch TAG --format tsv: deploy/links.py)
#   bash tasks.sh a11y      install what is missing, audit every lesson's accessibility
#                           (axe-core from npm, in Chromium, Voilà and JupyterLab)
# Everything lives in .venv beside this file; a second run installs nothing new.
set -euo pipefail
cd "$(dirname "$0")"

VENV=.venv
PYTHON="$VENV/bin/python"
FIRST_LESSON=notebooks/00-see-why-answers-need-noise.ipynb
PORT="${PORT:-8888}"
# Kernels started many at once (a preheated pool) talk over socket files of their own
# where the system has them: over TCP, a kernel's port, picked free, can be taken by
# another process before the kernel binds it, and the kernel dies ("Address already in use").
# (Linux only: macOS's temporary folders make socket paths longer than it allows.)
KERNEL_TRANSPORT=
if [ "$(uname -s)" = Linux ]; then KERNEL_TRANSPORT=--KernelManager.transport=ipc; fi

ensure_environment() {
  if [ ! -x "$PYTHON" ]; then
    python3 -m venv "$VENV"
  fi
  # Reinstall only when the lock file or the package's declaration changes. The lock
  # holds the exact, tested version and hashes of every package (bash tasks.sh lock).
  local wanted
  wanted=$(cat requirements-lock.txt pyproject.toml | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$VENV/.installed" 2>/dev/null)" != "$wanted" ]; then
    "$PYTHON" -m pip install --quiet --upgrade pip
    "$PYTHON" -m pip install --quiet --require-hashes -r requirements-lock.txt
    "$PYTHON" -m pip install --quiet --no-deps -e .
    echo "$wanted" > "$VENV/.installed"
  fi
}

ensure_chromium() {
  # The browser tests drive Debian's Chromium; Playwright never downloads a browser here.
  if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "chromium is missing: install it (sudo apt-get install chromium) to run the browser tests" >&2
    fi
  fi
}

ensure_system_packages() {
  # Debian packages the lessons and tests use beside Python: a font that draws Chinese in
  # the figures (WenQuanYi Micro Hei, 1.6 MB; fonts-noto-cjk is larger) and gettext's
  # msgfmt, which checks the catalogs. Installed where we are root, as for Chromium.
  local missing=()
  fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" || missing+=(fonts-wqy-microhei)
  command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
  if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
      # matplotlib lists the fonts once and caches the list: let it look again.
      rm -f "${MPLCONFIGDIR:-$HOME/.cache/matplotlib}"/fontlist-*.json
    else
      echo "missing: ${missing[*]} (sudo apt-get install ${missing[*]}; on macOS and Windows" \
        "a system CJK font is used)" >&2
    fi
  fi
}

PROXY_VERSION=5.3.0

ensure_proxy() {
  # JupyterHub's proxy is a Node.js program: npm installs it into .hub/, beside nothing else.
  if [ ! -x .hub/node_modules/.bin/configurable-http-proxy ]; then
    if command -v npm >/dev/null 2>&1; then
      mkdir -p .hub
      npm install --silent --no-audit --no-fund --prefix .hub \
        "configurable-http-proxy@$PROXY_VERSION" >/dev/null
    else
      echo "npm is missing: install Node.js (sudo apt-get install npm) to run the hub" >&2
      return 1
    fi
  fi
}

AXE_VERSION=4.14.1

ensure_axe() {
  # axe-core, the accessibility rules the browser tests run, from npm into .axe/.
  if [ ! -f .axe/node_modules/axe-core/axe.min.js ]; then
    if command -v npm >/dev/null 2>&1; then
      npm install --silent --no-audit --no-fund --prefix .axe "axe-core@$AXE_VERSION" >/dev/null
    else
      echo "npm is missing: install Node.js (sudo apt-get install npm) for the accessibility audit" >&2
      return 1
    fi
  fi
}

root_flag() {
  [ "$(id -u)" = 0 ] && echo "--ServerApp.allow_root=True" || true
}

command="${1:-}"
shift || true
case "$command" in
  lab)
    ensure_environment
    ensure_system_packages
    # Never hand MPLBACKEND to kernels: the lessons choose their own backend.
    unset MPLBACKEND
    exec "$VENV/bin/jupyter" lab --ServerApp.ip=127.0.0.1 --ServerApp.port="$PORT" \
      $(root_flag) "$@" "$FIRST_LESSON"
    ;;
  test)
    ensure_environment
    ensure_chromium
    ensure_system_packages
    # The hub's smoke test (tests/test_hub.py) needs the proxy; without npm it is skipped.
    ensure_proxy || true
    # The accessibility audit (tests/test_accessibility.py) needs axe-core; without npm it is skipped.
    ensure_axe || true
    unset MPLBACKEND
    # One worker more than the machine has cores (TEST_WORKERS to change): the browser and
    # hub tests, in two xdist groups (tests/conftest.py) each on one worker with one
    # Chromium, spend much of their time waiting for a page, a kernel or a server, and the
    # extra worker keeps the cores busy meanwhile (with one worker per core, the cores
    # would idle while those tests wait). The 15 slowest tests are listed
    # at the end, so that growth is seen.
    workers=${TEST_WORKERS:-$("$VENV/bin/python" -c "import os; print((os.cpu_count() or 1) + 1)")}
    exec "$VENV/bin/python" -m pytest -n "$workers" --dist loadgroup --durations=15 "$@"
    ;;
  lock)
    ensure_environment
    "$PYTHON" -m pip install --quiet -e ".[lock]"
    "$PYTHON" tools/lock.py --uv "$VENV/bin/uv"
    ;;
  a11y)
    ensure_environment
    ensure_chromium
    ensure_axe
    unset MPLBACKEND
    exec "$VENV/bin/python" -m pytest -m e2e -s tests/test_accessibility.py "$@"
    ;;
  present)
    ensure_environment
    ensure_system_packages
    unset MPLBACKEND
    # Voilà serves the folder: / lists it, /voila/render/index.ipynb is the course's
    # contents page (zh/index.ipynb, ru/index.ipynb for the other editions), and every
    # lesson's links are relative to it. Preheated kernels: each notebook of the chosen
    # edition already runs in POOL_SIZE waiting kernels (1 by default), so a lesson opens
    # live at once; a used kernel is replaced a second later. The other editions are
    # served too, without preheating, so the pool does not triple.
    edition=en
    case "${1:-}" in en|zh|ru) edition=$1; shift ;; esac
    if [ "$edition" = en ]; then
      contents=index.ipynb
      others='["notebooks/zh/", "notebooks/ru/"]'
    else
      contents=$edition/index.ipynb
      others="[\"^(?!.*notebooks/$edition/)\"]"
    fi
    exec "$VENV/bin/voila" --Voila.ip=127.0.0.1 --port="$PORT" --no-browser \
      --Voila.custom_display_url="http://127.0.0.1:$PORT/voila/render/$contents" \
      --preheat_kernel=True --pool_size="${POOL_SIZE:-1}" $KERNEL_TRANSPORT \
      --VoilaKernelManager.preheat_denylist="$others" \
      "$@" notebooks/
    ;;
  translate)
    ensure_environment
    exec "$PYTHON" tools/translate.py "$@"
    ;;
  figures)
    ensure_environment
    ensure_system_packages
    exec "$PYTHON" -m dplearn.figures "$@"
    ;;
  bench)
    ensure_environment
    exec "$PYTHON" benchmarks/run.py "$@"
    ;;
  hub)
    ensure_environment
    ensure_proxy
    unset MPLBACKEND
    echo "A local hub for a rehearsal: http://127.0.0.1:${HUB_PORT:-8000}/ (any user name," \
      "password ${HUB_PASSWORD:-rehearsal}); a lesson as an app:" \
      "http://127.0.0.1:${HUB_PORT:-8000}/user/NAME/voila/render/notebooks/index.ipynb" >&2
    mkdir -p "${DPLEARN_HUB_STATE:-.hub}"
    PATH="$PWD/.hub/node_modules/.bin:$PWD/$VENV/bin:$PATH" \
      exec "$VENV/bin/jupyterhub" -f hub/jupyterhub_config.py "$@"
    ;;
  proxy)
    ensure_proxy
    ;;
  links)
    # Only the standard library: no installation for a teacher who wants the links.
    if [ -x "$PYTHON" ]; then exec "$PYTHON" deploy/links.py "$@"; fi
    exec python3 deploy/links.py "$@"
    ;;
  navigation)
    ensure_environment
    exec "$PYTHON" tools/lesson_navigation.py "$@"
    ;;
  *)
    echo "usage: bash tasks.sh {lab|test|lock|present|translate|figures|bench|navigation|hub|proxy|links|a11y} [arguments]" >&2
    exit 2
    ;;
esac
