/**
 * The spawn helper: a small perl program that forks and execs children on request and relays
 * their output and exit status. It is perl because perl is present on nearly every Unix system,
 * starts in milliseconds, and forks from a few megabytes of memory (see child-launcher.ts).
 *
 * Requests (stdin), each a header line, optionally followed by a payload:
 *   `spawn <id> <len>\n<payload>`  payload fields separated by NUL: cwd, file, argc, the argc
 *                                  arguments (argv[0] first), then `KEY=value` entries set on
 *                                  top of the helper's own environment (the worker's)
 *   `go <id>\n`                    let the child exec its program (see "gate" below)
 *   `release <id>\n`               stop relaying the child's output (its group was killed)
 * Replies (stdout), written once per turn of the helper's loop:
 *   `s <id> <pid>\n`               forked: the child leads its own session and process group
 *   `f <id> <len>\n<stage>\t<errno>\t<message>`  could not fork (stage: pipe, fork)
 *   `1 <id> <len>\n<bytes>`        stdout bytes          `2 <id> <len>\n<bytes>`  stderr bytes
 *   `c <id> 1|2\n`                 stdout / stderr closed (every holder closed it)
 *   `x <id> <status>\n`            the child exited; status as from wait(2)
 * The helper exits when its stdin closes: its owner (the worker, its process) is gone or asked it
 * to end. It first ends the children still running, each child's whole process group: SIGTERM,
 * up to 3 s to exit (reaping meanwhile), then SIGKILL. Nobody could relay their output or record
 * their end any more, and a supervisor that takes their runs over runs those nodes again: on
 * this host it would kill them itself, but one on another host (several supervisors on
 * PostgreSQL) cannot, and the same node would run twice at once.
 *
 * The gate: a forked child waits, before it execs, for a byte on a pipe whose write end only the
 * helper holds, and the helper writes it on `go`. The worker sends `go` once the attempt's start
 * (with this pid) is recorded. If the worker, its process or the helper dies first, the pipe
 * closes and the child exits (125) without running anything: no program ever runs that a later
 * supervisor could not find in the record and kill.
 *
 * On Linux the helper makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER): a process
 * a node leaves behind when its parent exits is re-parented to the helper rather than to PID 1,
 * and the helper's wait loop reaps it. Without this, a `cairn serve` running as PID 1 (a
 * container started without an init) would collect every such orphan as a zombie.
 *
 * The helper's own loop does as little as it can per child (every microsecond there delays the
 * next fork): the child parses its request itself, after the fork. In the child: new session,
 * stdin from /dev/null, SIGPIPE and the signal mask reset (the helper ignores SIGPIPE; an exec'd
 * program must not inherit that), then chdir, environment, exec. A chdir or exec failure is
 * written to the child's stderr and it exits with 127, as a shell does; the worker checks the
 * working directory before asking, so that is rare.
 */
export const SPAWN_HELPER_PROGRAM = String.raw`
use strict;
use warnings;
use POSIX ();
use Config;

# Become the reaper of orphaned descendants (prctl(PR_SET_CHILD_SUBREAPER = 36, 1)); the
# syscall number of prctl differs by architecture. Best effort: nothing depends on it working.
if ($^O eq 'linux') {
  my %prctl = (x86_64 => 157, aarch64 => 167, i386 => 172, i686 => 172, arm => 172);
  my ($arch) = $Config{archname} =~ /^([^-]+)/;
  syscall($prctl{$arch}, 36, 1, 0, 0, 0) if defined $arch && $prctl{$arch};
}

$SIG{PIPE} = 'IGNORE';
my $got_child = 0;
$SIG{CHLD} = sub { $got_child = 1 };
binmode STDIN;
binmode STDOUT;

my %kids;     # id -> { status (once reaped), open (streams still open) }
my %id_of;    # pid -> id, until reaped
my %watch;    # fileno -> [stream ('1' stdout, '2' stderr), id, fh]
my %gates;    # id -> write end of the child's gate pipe, until 'go' (or the child is gone)
my $rbits = '';
my $in = '';
my $out = '';

sub emit { $out .= join '', @_; }

sub flush {
  my $off = 0;
  while ($off < length $out) {
    my $n = syswrite STDOUT, $out, length($out) - $off, $off;
    if (!defined $n) { next if $!{EINTR}; exit 0; }
    $off += $n;
  }
  $out = '';
}

sub unwatch {
  my ($fd) = @_;
  my $entry = delete $watch{$fd} or return;
  vec($rbits, $fd, 1) = 0;
  close $entry->[2];
}

sub forget_if_done {
  my ($id) = @_;
  my $kid = $kids{$id} or return;
  delete $kids{$id} if defined $kid->{status} && $kid->{open} == 0;
}

sub exec_request {
  my ($payload) = @_;
  my ($cwd, $file, $argc, @rest) = split /\0/, $payload, -1;
  my @args = splice @rest, 0, $argc;
  for my $entry (@rest) {
    my $at = index $entry, '=';
    $ENV{substr $entry, 0, $at} = substr $entry, $at + 1 if $at > 0;
  }
  unless (chdir $cwd) {
    print STDERR "cannot change to directory '$cwd': $!\n";
    POSIX::_exit(127);
  }
  { no warnings 'exec'; exec { $file } @args; }
  print STDERR "cannot execute '$file': $!\n";
  POSIX::_exit(127);
}

sub open_gate {
  my ($id) = @_;
  my $gw = delete $gates{$id} or return;
  syswrite $gw, 'g';
  close $gw;
}

sub spawn_child {
  my ($id, $payload) = @_;
  my ($or, $ow, $er, $ew, $gr, $gw);
  my $ok = pipe($or, $ow) && pipe($er, $ew) && pipe($gr, $gw);
  my $pid = $ok ? fork : undef;
  if (!defined $pid) {
    my $text = ($ok ? 'fork' : 'pipe') . "\t" . ($! + 0) . "\t$!";
    close $_ for grep { defined } ($or, $ow, $er, $ew, $gr, $gw);
    emit("f $id ", length($text), "\n", $text);
    return;
  }
  if ($pid == 0) {
    $SIG{PIPE} = 'DEFAULT';
    $SIG{CHLD} = 'DEFAULT';
    POSIX::sigprocmask(POSIX::SIG_SETMASK(), POSIX::SigSet->new());
    POSIX::setsid();
    POSIX::dup2(fileno $ow, 1);
    POSIX::dup2(fileno $ew, 2);
    # Never leave the request pipe as the child's stdin.
    open(STDIN, '<', '/dev/null') or do { print STDERR "cannot open /dev/null: $!\n"; POSIX::_exit(127) };
    # Hold no other child's gate open, then wait at our own until the worker says go.
    close $_ for ($gw, values %gates);
    my $n;
    do { $n = sysread $gr, my $byte, 1 } while (!defined $n && $!{EINTR});
    POSIX::_exit(125) unless $n;
    close $gr;
    exec_request($payload);
  }
  close $ow;
  close $ew;
  close $gr;
  $gates{$id} = $gw;
  $kids{$id} = { status => undef, open => 2 };
  $id_of{$pid} = $id;
  for my $s (['1', $or], ['2', $er]) {
    my $fd = fileno $s->[1];
    $watch{$fd} = [$s->[0], $id, $s->[1]];
    vec($rbits, $fd, 1) = 1;
  }
  emit("s $id $pid\n");
}

sub on_readable {
  my ($fd) = @_;
  my ($which, $id, $fh) = @{ $watch{$fd} };
  my $n = sysread $fh, my $buf, 65536;
  if (!defined $n) { return if $!{EINTR} || $!{EAGAIN}; $n = 0; }
  if ($n > 0) { emit("$which $id $n\n", $buf); return; }
  emit("c $id $which\n");
  unwatch($fd);
  $kids{$id}{open}--;
  forget_if_done($id);
}

sub release_child {
  my ($id) = @_;
  my $kid = $kids{$id} or return;
  for my $fd (grep { $watch{$_}[1] eq $id } keys %watch) { unwatch($fd); }
  $kid->{open} = 0;
  forget_if_done($id);
}

sub read_requests {
  my $n = sysread STDIN, $in, 65536, length $in;
  if (!defined $n) { return if $!{EINTR}; exit 0; }
  if ($n == 0) { flush(); end_children(); exit 0; }
  while ((my $nl = index $in, "\n") >= 0) {
    my ($op, $id, $len) = split / /, substr($in, 0, $nl);
    if ($op eq 'spawn') {
      last if length($in) < $nl + 1 + $len;
      my $payload = substr $in, $nl + 1, $len;
      substr($in, 0, $nl + 1 + $len) = '';
      spawn_child($id, $payload);
    } else {
      substr($in, 0, $nl + 1) = '';
      if ($op eq 'go') { open_gate($id); }
      elsif ($op eq 'release') { close(delete $gates{$id}) if $gates{$id}; release_child($id); }
    }
  }
}

sub reap {
  $got_child = 0;
  while ((my $pid = waitpid(-1, POSIX::WNOHANG())) > 0) {
    my $id = delete $id_of{$pid};
    close(delete $gates{$id}) if defined $id && $gates{$id};
    next unless defined $id && $kids{$id};
    $kids{$id}{status} = $?;
    emit("x $id $?\n");
    forget_if_done($id);
  }
}

# The owner is gone: end every running child's group (see the header), then let the caller exit.
sub end_children {
  my @groups = keys %id_of;
  return unless @groups;
  $SIG{PIPE} = 'IGNORE';
  kill 'TERM', map { -$_ } @groups;
  my $turns = 150; # of 20 ms: 3 s
  while ($turns-- > 0 && grep { kill 0, -$_ } @groups) {
    select(undef, undef, undef, 0.02);
    1 while waitpid(-1, POSIX::WNOHANG()) > 0;
  }
  kill 'KILL', map { -$_ } grep { kill 0, -$_ } @groups;
  1 while waitpid(-1, POSIX::WNOHANG()) > 0;
}

while (1) {
  my $r = $rbits;
  vec($r, 0, 1) = 1;
  # SIGCHLD interrupts select, but perl runs its handler only between operations: a signal that
  # lands after the last check and before select is seen only when select returns. So select
  # never waits without end: 20 ms while a child of ours runs (its exit is reported promptly),
  # otherwise 1 s, the longest an orphan that dies in that moment waits to be reaped.
  my $ready = select($r, undef, undef, $got_child ? 0 : %id_of ? 0.02 : 1);
  if ($ready > 0) {
    # The streams select found readable, taken before the requests are read: a 'release' closes
    # descriptors whose numbers a 'spawn' in the same read reuses, and the new child's pipe must
    # not be read on the old one's readiness (its child waits at its gate: the read would block).
    my @readable = map { [$_, $watch{$_}] } grep { vec($r, $_, 1) } keys %watch;
    read_requests() if vec($r, 0, 1);
    for my $seen (@readable) {
      my ($fd, $entry) = @$seen;
      on_readable($fd) if $watch{$fd} && $watch{$fd} == $entry;
    }
  }
  reap() if $got_child || $ready == 0;
  flush();
}
`;
