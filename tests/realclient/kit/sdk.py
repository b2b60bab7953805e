"""The official Python MCP SDK for the real-client scripts: imported from the kit's venv.

A script run by the system python3 is re-executed once with the venv's python (setup.sh made
it), so `python3 script.py` works both inside and outside the venv.
"""
import os
import sys


def ensure_mcp_sdk(script):
    """Return (Client, StdioServerParameters), re-executing under the kit's venv if needed."""
    try:
        from mcp import Client
        from mcp.client.stdio import StdioServerParameters
        return Client, StdioServerParameters
    except ImportError:
        home = os.environ.get("REALCLIENT_HOME") or os.path.expanduser("~/.cache/cmem-realclient")
        py = os.path.join(home, "venv", "bin", "python")
        if os.path.exists(py) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.join(home, "venv")):
            os.execv(py, [py] + sys.argv)
        sys.exit(f"{script}: the Python MCP SDK is not installed (run kit/setup.sh; looked in {py})")
