#!/bin/sh
# deps.sh - install the Debian packages privd needs to build, test and run.
# As root: installs what is missing (idempotent; slapd preseeded so that no
# system instance is configured or started). Not as root: names what is
# missing and fails.
set -eu
PKGS="gcc make pkg-config libldap-dev slapd ldap-utils libmicrohttpd-dev
libyaml-dev libcmocka-dev libjansson-dev libcurl4-openssl-dev nettle-dev
libgnutls28-dev libsystemd-dev valgrind curl wrk openssl
cups cups-daemon cups-client cups-ipp-utils cups-filters libcups2-dev
libcupsimage2-dev libqpdf-dev qpdf ghostscript dbus-daemon socat jq
libpam0g-dev pamtester libpam-wrapper python3 python3-aiosmtpd chromium iproute2 apache2"
[ "${1:-}" = "--bench" ] && PKGS="$PKGS linux-perf"
[ "${1:-}" = "--fuzz" ] && PKGS="$PKGS clang"
[ "${1:-}" = "--deb" ] && PKGS="$PKGS debhelper dpkg-dev fakeroot lintian"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	case $st in *"install ok installed"*) ;; *) missing="$missing $p" ;; esac
done
# the web page's browser test drives Chromium from Node.js: any node and npm
# will do (a newer Node.js may be installed already); Debian's when none is
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	missing="$missing nodejs npm"
fi
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "privd: missing Debian packages:$missing" >&2
	echo "privd: install them (as root: make deps, or apt-get install$missing)" >&2
	exit 1
fi
echo "privd: installing$missing" >&2
echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections
export DEBIAN_FRONTEND=noninteractive
# no system service started by an install (apache2 on port 80): the tests
# start their own on loopback
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
	chmod 755 /usr/sbin/policy-rc.d
	trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
