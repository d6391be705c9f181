# Shared by the CI scripts: install what is missing, the Swift toolchain on PATH.

# apt_install "PACKAGE..." WHY: installs missing Debian packages (with sudo when not root), one
# `apt-get update` for all of them.
apt_install() {
  echo "$2 is missing; installing $1"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update
  # shellcheck disable=SC2086 # the packages are words
  $sudo apt-get install -y $1
}

pkg-config --exists yaml-0.1 || apt_install libyaml-dev "libyaml (yaml-0.1)"
export PATH="/opt/swift/usr/bin:$PATH"
