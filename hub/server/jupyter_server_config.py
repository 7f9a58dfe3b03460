"""The learners' Jupyter servers on the hub: formulas typeset without a network.

Voilà, run inside a Jupyter server (its server extension, as on a hub), tells its pages
to load MathJax from cdnjs.cloudflare.com unless the server's settings name a MathJax;
a hub that cannot reach the internet then shows every formula as raw ``$...$``. With
no MathJax named, the page typesets with the MathJax that Voilà's own page bundles, as
``bash tasks.sh present`` does. On a hub of your own, put these lines into the image's
jupyter_server_config.py.
"""

c = get_config()  # noqa: F821 - Jupyter defines get_config when it loads this file

c.ServerApp.tornado_settings = {"mathjax_url": None, "mathjax_config": None}
