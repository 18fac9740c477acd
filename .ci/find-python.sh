# Sourced by .ci/run and .ci/stress: find_python MINOR prints the path of a Python of that
# minor version (3.11 ... 3.15), found by minor version, never by patch: pyenv first, then
# pythonX.Y on PATH, then the private builds of shared/tools/newer-python.sh (which installs
# 3.14 and 3.15 under ~/.cache/newer-python without touching the system, and is run only
# when a version is missing everywhere else). Prints nothing when there is none.
if [ -d "$HOME/.pyenv/bin" ]; then PATH="$HOME/.pyenv/bin:$PATH"; fi
newer_python_dir="${NEWER_PYTHON_PREFIX:-$HOME/.cache/newer-python}/bin"
newer_python_tool="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/shared/tools/newer-python.sh"

find_python() {
    local minor=$1 version=""
    if command -v pyenv >/dev/null 2>&1; then
        version=$(pyenv versions --bare | grep -E "^${minor//./\\.}\.[0-9]+$" | sort -V | tail -n 1 || true)
        if [ -n "$version" ]; then
            echo "$(pyenv root)/versions/$version/bin/python"
            return
        fi
    fi
    if command -v "python$minor" >/dev/null 2>&1 && "python$minor" -c pass 2>/dev/null; then
        command -v "python$minor"
        return
    fi
    if [ ! -x "$newer_python_dir/python$minor" ] && [ -f "$newer_python_tool" ]; then
        bash "$newer_python_tool" "$minor" >&2 || true
    fi
    if [ -x "$newer_python_dir/python$minor" ]; then
        echo "$newer_python_dir/python$minor"
    fi
}
