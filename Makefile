# Makefile - privd: build, test and run. See README.md.
#
#   make            build server/privd, client/privctl, client/cups/privd-cups
#   make run        private slapd with the demo data, privd on 127.0.0.1:$(PORT)
#   make check      unit tests (under valgrind) and integration tests
#   make asan       the suite built with ASan + UBSan (not the page, make install)
#   make torture    the two-provider fault test, 50 rounds a fault (root)
#   make deps       install missing Debian packages (as root)
#   make deb        the Debian packages privd, privd-cups, libpam-privd in build/deb/

CC	?= cc
B	?= build/release
OPT	?= -O2 -g
SAN	?=
PORT	?= 8080
VALGRIND ?= valgrind -q --error-exitcode=99 --leak-check=full \
	--errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect

CFLAGS	= -std=c11 -Wall -Wextra -Werror $(OPT) $(SAN) -D_GNU_SOURCE -MMD -MP -Iserver
LDFLAGS	= $(SAN)
LIBS	= -lldap -llber -lmicrohttpd -lyaml -ljansson -lnettle -lcurl -lsystemd -lpthread

ifeq ($(B),build/release)
PRIVD	= server/privd
PRIVCTL	= client/privctl
PRIVCUPS = client/cups/privd-cups
PAMMOD	= client/pam/pam_privd.so
else
PRIVD	= $(B)/privd
PRIVCTL	= $(B)/privctl
PRIVCUPS = $(B)/privd-cups
PAMMOD	= $(B)/pam_privd.so
endif

SRV_SRC	= $(filter-out server/main.c,$(wildcard server/*.c))
SRV_OBJ	= $(SRV_SRC:%.c=$(B)/%.o)
UNIT_SRC = $(wildcard tests/test_*.c)
UNIT_BIN = $(UNIT_SRC:tests/%.c=$(B)/tests/%)
INTEG_SRC = $(wildcard tests/integration/test_*.c)
INTEG_BIN = $(INTEG_SRC:tests/integration/%.c=$(B)/tests/integration/%)
# the shell tests of make integration; make asan leaves out the ones whose
# privd has nothing new to show a sanitizer (the page, make install) and the
# two slowest, whose C runs in the tests it keeps (multi: the charge path of
# jepsen; cups: the backend's client layer of pam)
SHELL_TESTS ?= directory daemon modeltest cups pam multi consumers jepsen ui install
# test_bulk's import and test_ledger's busy account: their full sizes (20,000
# accounts, 50,000 charges) take make torture; make check, half the time
BULK_ACCOUNTS ?= 10000
BUSY_CHARGES ?= 20000

.PHONY: all deps check tests unit integration asan fuzz bench bench-1m run clean install torture deb

PREFIX	?= /usr/local
DESTDIR	?=
SBINDIR	= $(PREFIX)/sbin
BINDIR	= $(PREFIX)/bin
MANDIR	= $(PREFIX)/share/man
DATADIR	= $(PREFIX)/share/privd
DOCDIR	= $(PREFIX)/share/doc/privd
UNITDIR	?= $(PREFIX)/lib/systemd/system
CUPS_BACKENDDIR ?= $(PREFIX)/lib/cups/backend
PAMDIR	?= $(PREFIX)/lib/security
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
all: $(PRIVD) $(PRIVCTL) $(PRIVCUPS) $(PAMMOD)

deps:
	@deploy/deps.sh

# the packages, built from a copy of the tree's files (never the tree's own
# build): dpkg-buildpackage writes the .debs beside the copy, in build/deb/
deb:
	@deploy/deps.sh --deb
	@rm -rf build/deb && mkdir -p build/deb/privd
	@git ls-files -z --cached --others --exclude-standard | \
		xargs -0 cp -a --parents -t build/deb/privd 2>/dev/null || \
		tar -C . --exclude=./build --exclude=./.git -cf - . | tar -C build/deb/privd -xf -
	@cd build/deb/privd && dpkg-buildpackage -us -uc -b > ../build.log 2>&1 || \
		{ tail -30 ../build.log; exit 1; }
	@ls build/deb/*.deb

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

$(PRIVD): $(B)/server/main.o $(SRV_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# client/: one HTTP and config layer under each front end
CLI_LIB	= $(B)/client/rest.o $(B)/client/yconf.o $(B)/client/keyfile.o $(B)/server/ybound.o \
	$(B)/server/money.o $(B)/server/rfile.o
CUPS_OBJ = $(patsubst %.c,$(B)/%.o,$(wildcard client/cups/*.c))

$(B)/client/%.o: CFLAGS += -Iclient

$(PRIVCTL): $(B)/client/privctl.o $(B)/client/conf.o $(CLI_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ -lcurl -ljansson -lyaml

$(PRIVCUPS): $(CUPS_OBJ) $(CLI_LIB)
	$(CC) $(LDFLAGS) -o $@ $^ -lcurl -ljansson -lyaml -lcupsimage -lcups -lqpdf

# the PAM module loads into sshd, login, su: position-independent, and never
# built with sanitizers (their runtime must come first in the process);
# tests/integration/pam.sh runs it under valgrind instead
PAM_SRC	= client/pam/pam_privd.c client/rest.c client/yconf.c client/keyfile.c server/ybound.c \
	server/rfile.c
PAM_OBJ	= $(PAM_SRC:%.c=$(B)/pic/%.o)
PIC_CFLAGS = -std=c11 -Wall -Wextra -Werror $(OPT) -fPIC -fvisibility=hidden -D_GNU_SOURCE \
	-MMD -MP -Iclient -Iserver

$(B)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -c -o $@ $<

$(PAMMOD): $(PAM_OBJ)
	$(CC) -shared -Wl,-z,defs -o $@ $^ -lpam -lcurl -ljansson -lyaml

$(B)/tests/test_%: $(B)/tests/test_%.o $(B)/tests/fixture.o $(SRV_OBJ)
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) -lcmocka

# privd-cups's colour classifier (client/cups/colour.c), tested on its own
$(B)/tests/test_colour: $(B)/client/cups/colour.o $(B)/client/cups/pages.o
$(B)/tests/test_colour: LIBS += -lcupsimage -lcups -lqpdf
$(B)/tests/test_colour.o: CFLAGS += -Iclient/cups

$(B)/tests/integration/test_%: $(B)/tests/integration/test_%.o $(B)/tests/integration/harness.o
	$(CC) $(LDFLAGS) -o $@ $^ -lcmocka -lcurl -ljansson -lpthread

# every test program, so a parallel make can build them before any runs
tests: $(UNIT_BIN) $(INTEG_BIN) $(B)/bench/population

unit: $(UNIT_BIN)
	@set -e; for t in $(UNIT_BIN); do $(VALGRIND) $$t; done

# a synthetic population in the import format (bulk tests, make bench)
$(B)/bench/population: bench/population.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $<

# each test's seconds are printed, so a slow CI run shows where it went
integration: $(PRIVD) $(PRIVCTL) $(PRIVCUPS) $(PAMMOD) $(INTEG_BIN) $(B)/bench/population
	@rm -f $(B)/api-answers.jsonl
	@set -e; for t in $(INTEG_BIN); do s=$$(date +%s); PRIVD_BIN=$(PRIVD) PRIVCTL_BIN=$(PRIVCTL) \
		PRIVD_BULK_ACCOUNTS=$(BULK_ACCOUNTS) PRIVD_BUSY_CHARGES=$(BUSY_CHARGES) POPULATION_BIN=$(B)/bench/population PRIVD_API_RECORD=$(CURDIR)/$(B)/api-answers.jsonl $$t; \
		echo "integration: $$(basename $$t) $$(($$(date +%s) - s)) s"; done
	@tests/openapi/check.sh $(B)/api-answers.jsonl
	@set -e; for t in $(SHELL_TESTS); do s=$$(date +%s); PRIVD_BIN=$(PRIVD) PRIVCTL_BIN=$(PRIVCTL) \
		PRIVCUPS_BIN=$(PRIVCUPS) PAMMOD=$(PAMMOD) tests/integration/$$t.sh; \
		echo "integration: $$t.sh $$(($$(date +%s) - s)) s"; done

# deps first, in its own make, so a fresh machine has the headers before compiling
check:
	@deploy/deps.sh
	@tests/docmap.sh
	@tests/layers.sh
	@$(MAKE) --no-print-directory -j2 all tests
	@$(MAKE) --no-print-directory unit
	@$(MAKE) --no-print-directory integration
	@tests/integration/deb.sh

ASAN	= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

asan:
	@deploy/deps.sh
	@$(MAKE) --no-print-directory -j2 B=build/asan OPT="-O1 -g" SAN="$(ASAN)" all tests
	@ROUNDS=1 AWAY_ROUNDS=1 AWAY_FAULTS=partition $(MAKE) --no-print-directory B=build/asan OPT="-O1 -g" VALGRIND= \
		BULK_ACCOUNTS=2000 BUSY_CHARGES=3000 \
		SHELL_TESTS="directory daemon modeltest pam consumers jepsen" \
		SAN="$(ASAN)" unit integration

# libFuzzer: each target FUZZ_TIME seconds from its seeds (tests/fuzz/seeds);
# any crash, leak or sanitizer report fails, leaving the input in build/fuzz
FUZZ_TIME ?= 60
FUZZ_CC	= clang
FUZZ_FLAGS = -std=c11 -g -O1 -D_GNU_SOURCE -Iserver -Itests \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS = config import grant body
FUZZ_SRV = $(filter-out server/main.c,$(wildcard server/*.c)) tests/fixture.c

fuzz:
	@deploy/deps.sh --fuzz
	@mkdir -p build/fuzz/obj
	@set -e; for f in $(FUZZ_SRV); do \
		$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c -o build/fuzz/obj/$$(basename $$f .c).o $$f; \
	done
	@set -e; for t in $(FUZZ_TARGETS); do \
		$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o build/fuzz/fuzz_$$t \
			tests/fuzz/fuzz_$$t.c build/fuzz/obj/*.o $(LIBS); \
	done
	@set -e; for t in $(FUZZ_TARGETS); do \
		mkdir -p build/fuzz/corpus_$$t; \
		echo "fuzz: $$t for $(FUZZ_TIME) s"; \
		build/fuzz/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=10 -rss_limit_mb=1024 \
			-print_final_stats=1 -artifact_prefix=build/fuzz/$$t- \
			build/fuzz/corpus_$$t tests/fuzz/seeds/$$t 2>build/fuzz/$$t.log || \
			{ tail -60 build/fuzz/$$t.log; exit 1; }; \
		grep -E "^stat::number_of_executed_units|^stat::new_units_added" build/fuzz/$$t.log; \
	done

# side-by-side measurements (bench/README.md); a few minutes
bench: all
	@deploy/deps.sh --bench
	@bench/run.sh

# a million accounts beside the demo directory and 100,000, then an import of
# a million (about 25 minutes; BENCH_IMPORT=0 leaves the import out: 8)
bench-1m: all
	@deploy/deps.sh --bench
	@bench/run1m.sh

# the guarantee of doc/replication.md under 50 rounds of each fault, in both
# modes (about 40 minutes; the counts of each round go to build/torture.txt), then the
# 20,000-account import and the 50,000 charges into one account
torture: all tests
	@deploy/deps.sh
	@mkdir -p build
	@PRIVD_BIN=$(PRIVD) ROUNDS=50 AWAY_ROUNDS=50 KEEP_GOING=1 RESULTS=build/torture.txt tests/integration/jepsen.sh
	@$(MAKE) --no-print-directory BULK_ACCOUNTS=20000 BUSY_CHARGES=50000 SHELL_TESTS= \
		INTEG_BIN="$(B)/tests/integration/test_bulk $(B)/tests/integration/test_ledger" integration

# binaries (of the build B= names), man pages, the unit and its user, the
# schema, the slapd examples
install: all
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(DATADIR)/schema \
		$(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(DESTDIR)$(CUPS_BACKENDDIR) $(DESTDIR)$(PAMDIR)
	install -m 755 $(PRIVD) $(DESTDIR)$(SBINDIR)/privd
	install -m 755 $(PRIVCTL) $(DESTDIR)$(BINDIR)/privctl
	# 0700: cupsd runs it as root, as a backend that runs other backends must be
	install -m 700 $(PRIVCUPS) $(DESTDIR)$(CUPS_BACKENDDIR)/privd
	install -m 644 $(PAMMOD) $(DESTDIR)$(PAMDIR)/pam_privd.so
	install -m 644 doc/privctl.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 doc/privd.yaml.5 doc/privd-import.5 $(DESTDIR)$(MANDIR)/man5/
	install -m 644 doc/privd.8 doc/privd-cups.8 doc/pam_privd.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 644 schema/privd.schema schema/privd.ldif $(DESTDIR)$(DATADIR)/schema/
	install -m 644 deploy/slapd-provider.conf deploy/slapd-consumer.conf \
		deploy/slapd-multiprovider.conf $(DESTDIR)$(DATADIR)/
	install -m 644 deploy/privd-cn-config.ldif deploy/privd-slapd.conf config/privd.yaml \
		config/demo.yaml config/demo-test.yaml $(DESTDIR)$(DATADIR)/
	install -d $(DESTDIR)$(DATADIR)/web
	install -m 644 web/index.html web/app.js web/style.css $(DESTDIR)$(DATADIR)/web/
	install -m 644 README.md doc/model.md doc/api.md doc/quotas.md doc/imports.md doc/privctl.md \
		doc/web.md doc/security.md doc/operating.md doc/replication.md doc/notices.md \
		doc/entitlements.md doc/model-tests.md doc/openapi.yaml $(DESTDIR)$(DOCDIR)/
	install -m 644 deploy/README.md $(DESTDIR)$(DOCDIR)/DEPLOY.md
	install -m 644 deploy/cups/README.md $(DESTDIR)$(DOCDIR)/CUPS.md
	install -m 644 deploy/cups/cups.yaml $(DESTDIR)$(DATADIR)/cups.yaml
	install -m 644 deploy/pam/README.md $(DESTDIR)$(DOCDIR)/PAM.md
	install -m 644 deploy/pam/pam.yaml deploy/pam/sshd $(DESTDIR)$(DATADIR)/
	sed 's|@SBINDIR@|$(SBINDIR)|g' deploy/privd.service > $(DESTDIR)$(UNITDIR)/privd.service
	chmod 644 $(DESTDIR)$(UNITDIR)/privd.service
	install -m 644 deploy/privd.sysusers $(DESTDIR)$(SYSUSERSDIR)/privd.conf

run:
	@deploy/deps.sh
	@$(MAKE) --no-print-directory all
	@deploy/run-dev.sh $(PORT)

clean:
	rm -rf build server/privd client/privctl client/cups/privd-cups client/pam/pam_privd.so

-include $(shell find build -name '*.d' -type f -not -path 'build/deb/*' 2>/dev/null)

.SECONDARY:
