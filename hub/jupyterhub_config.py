"""A JupyterHub on this machine for rehearsing a class: `bash tasks.sh hub`.

Every learner logs in with any name and the rehearsal password, gets a Jupyter server of
their own (a local process, run as the hub's user) and, in their home, a copy of the
course's notebooks, as an nbgitpuller link would put it there on a real hub: copied once,
never overwritten, so a learner's work survives a restart. Voilà runs inside each server
(its server extension), so a lesson opens as an app at

    http://127.0.0.1:8000/user/NAME/voila/render/notebooks/02-see-what-delta-means.ipynb

and in JupyterLab at /user/NAME/lab/tree/notebooks/index.ipynb (where login lands).

Everything listens on 127.0.0.1 only: the hub's proxy (HUB_PORT, 8000 by default), the
proxy's API (HUB_PORT + 1) and the hub itself (HUB_PORT + 2). The dummy authenticator
takes any user name with the password HUB_PASSWORD ("rehearsal" by default): it is for a
rehearsal on one machine, never for a hub that others can reach. The hub's database,
cookie secret and the learners' homes live in DPLEARN_HUB_STATE (.hub/ by default).
"""

import os
import pathlib
import shutil
import sys

c = get_config()  # noqa: F821 - JupyterHub defines get_config when it loads this file

ROOT = pathlib.Path(__file__).resolve().parents[1]
STATE = pathlib.Path(os.environ.get("DPLEARN_HUB_STATE", ROOT / ".hub")).resolve()
PORT = int(os.environ.get("HUB_PORT", "8000"))
HOMES = STATE / "home"
HOMES.mkdir(parents=True, exist_ok=True)

c.JupyterHub.bind_url = f"http://127.0.0.1:{PORT}"
c.JupyterHub.hub_bind_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 1}"
c.ConfigurableHTTPProxy.pid_file = str(STATE / "proxy.pid")
c.JupyterHub.db_url = f"sqlite:///{STATE / 'jupyterhub.sqlite'}"
c.JupyterHub.cookie_secret_file = str(STATE / "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = str(STATE / "jupyterhub.pid")
# Stop every learner's server when the hub stops: nothing is left running.
c.JupyterHub.cleanup_servers = True
c.JupyterHub.cleanup_proxy = True

c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = os.environ.get("HUB_PASSWORD", "rehearsal")
c.Authenticator.allow_all = True

# A learner's link to a lesson starts their server by itself (no "Launch Server" button).
c.JupyterHub.implicit_spawn_seconds = 0.5

c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = str(HOMES / "{username}")
# The single-user server of this environment, with the lessons' packages and Voilà.
c.Spawner.cmd = [str(pathlib.Path(sys.executable).with_name("jupyterhub-singleuser"))]
c.Spawner.default_url = "/lab/tree/notebooks/index.ipynb"
# Their settings (hub/server/jupyter_server_config.py): Voilà typesets with its own MathJax.
c.Spawner.environment = {"JUPYTER_CONFIG_PATH": str(ROOT / "hub" / "server")}
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
if os.geteuid() == 0:
    # A container run as root: the learners' servers run as root too.
    c.Spawner.args = ["--allow-root"]


def copy_course(spawner):
    """Puts the course's notebooks into the learner's home, once (as nbgitpuller does)."""
    target = pathlib.Path(spawner.home_dir) / "notebooks"
    if not target.exists():
        shutil.copytree(
            ROOT / "notebooks", target, ignore=shutil.ignore_patterns(".ipynb_checkpoints")
        )


c.Spawner.pre_spawn_hook = copy_course
