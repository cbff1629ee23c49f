# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_eboardd_global_optspecs
    string join \n h/help V/version
end

function __fish_eboardd_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_eboardd_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_eboardd_using_subcommand
    set -l cmd (__fish_eboardd_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c eboardd -n "__fish_eboardd_needs_command" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_needs_command" -s V -l version -d 'Print version'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "demo" -d 'Play a real game on an emulated board through the serial path, showing each event'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "replay" -d 'Replay a recorded trace and print what eboardd decides, as JSON lines'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "run" -d 'Run the daemon: boards on their ports, games journalled, the D-Bus service'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "watch" -d 'Follow the running daemon\'s boards over D-Bus (or every host\'s over MQTT)'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "relay" -d 'Broadcast the boards of many hosts, followed through an MQTT broker: PGN files, HTTP and the lichess push, in tournament board order'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "uci" -d 'Be a UCI engine for chess GUIs: the bestmove is the move made on the board'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "list" -d 'Probe the serial ports and say which have boards on them'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "record" -d 'Record a board\'s traffic to a trace file while printing what it decodes'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "sim" -d 'Play a game with the simulated hand on an emulated board and write the trace'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "emulate" -d 'Put an emulated board on a pseudo-terminal for other programs: played live by the simulated hand (carrying out the moves shown on it), or replaying a trace'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "bench" -d 'Measure throughput and print the figures'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l speed -d 'How many times faster than real time the hand plays' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l protocol -d 'The board' -r -f -a "dgt\t'DGT e-boards'
millennium\t'Millennium ChessLink boards'"
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l game -d 'A PGN file to play a game from (default: an embedded famous game)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l index -d 'Which game of the PGN file (or of the embedded ones), from 1' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l seed -d 'The hand\'s seed (how it slides, captures, hesitates)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l laws -d 'The edition of the FIDE Laws the arbiter applies and cites [default: the trace\'s `laws` header, else fide-2023]' -r -f -a "fide-2023\t'The Laws in force from 2023 (the default)'
fide-2014\t'The Laws of 2014 (Article 4 as in 2018)'
fide-classic\t'The classic text of Article 4 (numbered 1–7)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -l touch-move -d 'What the arbiter does with touch-move breaches' -r -f -a "report\t'Publish the move and the violation'
enforce\t'Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do'
off\t'Report no touch-move breaches'"
complete -c eboardd -n "__fish_eboardd_using_subcommand demo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -l format -d 'What to print' -r -f -a "jsonl\t'The game events as JSON lines (the contract)'
pgn\t'The game as PGN'
uci\t'One confirmed move per line in UCI notation, as the game ends up'
sensors\t'Every decoded message and square change with its time (debugging)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -l laws -d 'The edition of the FIDE Laws the arbiter applies and cites [default: the trace\'s `laws` header, else fide-2023]' -r -f -a "fide-2023\t'The Laws in force from 2023 (the default)'
fide-2014\t'The Laws of 2014 (Article 4 as in 2018)'
fide-classic\t'The classic text of Article 4 (numbered 1–7)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -l touch-move -d 'What the arbiter does with touch-move breaches' -r -f -a "report\t'Publish the move and the violation'
enforce\t'Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do'
off\t'Report no touch-move breaches'"
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l config -d 'The configuration file (default: /etc/eboardd/config.toml with --system, else $XDG_CONFIG_HOME/eboardd/config.toml; a missing default file is fine)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l device -d 'A board\'s serial device, in addition to the configured ones (repeatable)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l bus-address -d 'Serve on the bus at this D-Bus address instead (private buses, tests)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l state-dir -d 'Where journals and finished games are kept (default: $STATE_DIRECTORY, else /var/lib/eboardd with --system, else $XDG_STATE_HOME/eboardd)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l laws -d 'The edition of the FIDE Laws the arbiter applies' -r -f -a "fide-2023\t''
fide-2014\t''
fide-classic\t''"
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l touch-move -d 'Touch-move breaches: report, enforce or off' -r -f -a "report\t''
enforce\t''
off\t''"
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l record -d 'Write every board\'s traffic as traces into this directory (for bug reports)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l pgn-dir -d 'Write every board\'s game as PGN to DIR (`board-N.pgn` and `games.pgn`), rewritten atomically on every move' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l relay-listen -d 'Serve `/games.pgn`, `/board/N.pgn` and `/events` (server-sent events) over HTTP on ADDR (`HOST:PORT`; a bare port listens on 127.0.0.1 only)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l livechess-listen -d 'Serve the DGT LiveChess WebSocket API (`ws://ADDR/api/v1.0`, for lichess.org/dgt and other LiveChess clients) on ADDR (`HOST:PORT`; a bare port listens on 127.0.0.1 only; LiveChess itself uses 1982)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l event -d 'The event\'s name in the PGN (`Event`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l site -d 'Where the event is played, in the PGN (`Site`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l round -d 'The round, in the PGN (`Round` is written `R.B` with the board\'s number)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l time-control -d 'The time control, in the PGN (`TimeControl`, like `5400+30`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l lichess-round -d 'Push every board\'s game (the text of `games.pgn`) to this lichess broadcast round, at most once a second, with back-off after errors. A round takes 64 games: with more boards, give more rounds (`ID1,ID2` or the option again): boards 1-64 go to the first, 65-128 to the second, and so on' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l lichess-token-file -d 'The file holding the lichess API token (scope study:write) for --lichess-round; keep it readable by the daemon only' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l lichess-url -d 'The lichess to push to (tests: a local server)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt -d 'The MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://... (TLS)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-prefix -d 'The topic prefix: this host\'s (default eboardd/<host>/) for `run`, a filter over all hosts (default eboardd/+/) for `relay` and `watch`' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-name -d 'This host\'s name in topics and messages (default: the machine\'s host name)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-user -d 'The MQTT user name (overrides one in the URL)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-password-file -d 'A file holding the MQTT password (its first line)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-ca-file -d 'CA certificates (PEM) for the broker\'s certificate (default: the system\'s)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-cert-file -d 'A client certificate chain (PEM) for brokers that require one' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l mqtt-key-file -d 'The private key (PEM) of --mqtt-cert-file' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l session -d 'Serve on the user\'s session bus (the default)'
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l system -d 'Serve on the system bus (the systemd service)'
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l board -d 'Only this board: its number (as in /org/eboardd/EBoard1/Board/N) or its device path' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l format -d 'What to print' -r -f -a "jsonl\t'Every event as a contract JSON line; with several boards each line gets `"board":N`'
uci\t'Each confirmed move in UCI notation, one a line (as `replay --format uci` prints them); new games, withdrawn moves, takebacks and results as `info string` lines'"
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l bus-address -d 'Follow the daemon on the bus at this D-Bus address' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt -d 'The MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://... (TLS)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-prefix -d 'The topic prefix: this host\'s (default eboardd/<host>/) for `run`, a filter over all hosts (default eboardd/+/) for `relay` and `watch`' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-name -d 'This host\'s name in topics and messages (default: the machine\'s host name)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-user -d 'The MQTT user name (overrides one in the URL)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-password-file -d 'A file holding the MQTT password (its first line)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-ca-file -d 'CA certificates (PEM) for the broker\'s certificate (default: the system\'s)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-cert-file -d 'A client certificate chain (PEM) for brokers that require one' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l mqtt-key-file -d 'The private key (PEM) of --mqtt-cert-file' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l system -d 'Follow the daemon on the system bus (default: the session bus)'
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt -d 'The MQTT broker: mqtt://[USER[:PASSWORD]@]HOST[:PORT] or mqtts://... (TLS)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-prefix -d 'The topic prefix: this host\'s (default eboardd/<host>/) for `run`, a filter over all hosts (default eboardd/+/) for `relay` and `watch`' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-name -d 'This host\'s name in topics and messages (default: the machine\'s host name)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-user -d 'The MQTT user name (overrides one in the URL)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-password-file -d 'A file holding the MQTT password (its first line)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-ca-file -d 'CA certificates (PEM) for the broker\'s certificate (default: the system\'s)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-cert-file -d 'A client certificate chain (PEM) for brokers that require one' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l mqtt-key-file -d 'The private key (PEM) of --mqtt-cert-file' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l board-map -d 'The board map (TOML): each `[[board]]` with `number`, `host`, and `board` (its number on the host) or `serial`, and optionally `white` and `black`' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l pgn-dir -d 'Write every board\'s game as PGN to DIR (`board-N.pgn` and `games.pgn`)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l relay-listen -d 'Serve `/games.pgn`, `/board/N.pgn` and `/events` over HTTP on ADDR (`HOST:PORT`; a bare port listens on 127.0.0.1 only)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l event -d 'The event\'s name in the PGN (`Event`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l site -d 'Where the event is played, in the PGN (`Site`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l round -d 'The round, in the PGN (`Round` is written `R.B` with the board\'s number)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l time-control -d 'The time control, in the PGN (`TimeControl`, like `5400+30`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l lichess-round -d 'Push every board\'s game to this lichess broadcast round (as `eboardd run` does). A round takes 64 games: with more boards, give more rounds (`ID1,ID2` or the option again): boards 1-64 go to the first, 65-128 to the second, and so on' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l lichess-token-file -d 'The file holding the lichess API token (scope study:write) for --lichess-round' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -l lichess-url -d 'The lichess to push to (tests: a local server)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand relay" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -l board -d 'Follow this board of the running daemon: its number (as in /org/eboardd/EBoard1/Board/N) or its device path' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -l device -d 'Open the board on this serial device here, not through the daemon' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -l protocol -d 'The board\'s protocol when it is opened here' -r -f -a "auto\t''
dgt\t''
millennium\t''"
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -l bus-address -d 'Follow the daemon on the bus at this D-Bus address' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -l system -d 'Follow the daemon on the system bus (default: the session bus, then the system bus)'
complete -c eboardd -n "__fish_eboardd_using_subcommand uci" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand list" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l device -d 'The board\'s serial device (`/dev/ttyUSB0`, `/dev/rfcomm0`...)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l protocol -d 'The board\'s protocol' -r -f -a "dgt\t'DGT e-boards'
millennium\t'Millennium ChessLink boards'"
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l seconds -d 'Stop after this many seconds (default: until interrupted or the board goes away)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l laws -d 'The edition of the FIDE Laws the arbiter applies and cites [default: the trace\'s `laws` header, else fide-2023]' -r -f -a "fide-2023\t'The Laws in force from 2023 (the default)'
fide-2014\t'The Laws of 2014 (Article 4 as in 2018)'
fide-classic\t'The classic text of Article 4 (numbered 1–7)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l touch-move -d 'What the arbiter does with touch-move breaches' -r -f -a "report\t'Publish the move and the violation'
enforce\t'Training: a move breaking 4.3/4.4 is not confirmed; a `due` event says what to do'
off\t'Report no touch-move breaches'"
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -l title -d 'A title for the trace header' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand record" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l pgn -d 'A PGN file to take the game from (default: the games embedded in eboardd, then the drills of special moves)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l game -d 'Which game of the file, from 1' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l protocol -d 'The board' -r -f -a "dgt\t'DGT e-boards'
millennium\t'Millennium ChessLink boards'"
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l seed -d 'The hand\'s seed' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l hand -d 'How the hand plays' -r -f -a "default\t'As people at a tournament board do'
torture\t'Fast, with many slides, quick replies, flicker and touches (no takebacks or illegal moves, which have no single right answer to score against)'
messy\t'At a normal pace, but messy: long rests on transit squares, captured pieces set down near by before they leave the board, pieces knocked over and put back, many captures pushed off, quick replies after about half the moves'"
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -l turned -d 'The board stands turned round (DGT) or has its cable on White\'s left (Millennium)'
complete -c eboardd -n "__fish_eboardd_using_subcommand sim" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l protocol -d 'The board' -r -f -a "dgt\t'DGT e-boards'
millennium\t'Millennium ChessLink boards'"
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l side -d 'The side the hand plays with moves of its own; the other side\'s moves are carried out when the board shows them' -r -f -a "white\t'White'
black\t'Black'
none\t'Neither: only shown moves and `play` commands'"
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l fen -d 'The position on the board at the start (default: the standard start)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l seed -d 'The seed of the hand and of its choice of moves' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l speed -d 'How many times faster than real time the board and the hand run' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l trace -d 'Play back the board\'s bytes of this trace instead' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -l no-clock -d 'A DGT board without a DGT3000 clock'
complete -c eboardd -n "__fish_eboardd_using_subcommand emulate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l megabytes -d 'How many megabytes of stream to decode per protocol (`codec`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l pgn -d 'PGN files or folders of them (default: the games embedded in eboardd)' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l games -d 'Play at most this many games (0: all)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l seeds -d 'Hands (seeds) per game and protocol' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l protocol -d 'Which boards' -r -f -a "dgt\t'DGT e-boards'
millennium\t'Millennium ChessLink boards'
both\t'Every board type'"
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l hand -d 'How the hand plays' -r -f -a "default\t'As people at a tournament board do'
torture\t'Fast, with many slides, quick replies, flicker and touches (no takebacks or illegal moves, which have no single right answer to score against)'
messy\t'At a normal pace, but messy: long rests on transit squares, captured pieces set down near by before they leave the board, pieces knocked over and put back, many captures pushed off, quick replies after about half the moves'"
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l hand-speed -d 'Divide the hand\'s thinking and motions by this (1: as people play; the torture hand\'s own speed is multiplied by it)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l settle-ms -d 'eboardd\'s settle window in milliseconds (`accuracy`, `traces`; default: the tracker\'s)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l slide-rests -d 'Whose slid pieces eboardd waits for, in case they rest on their way (`accuracy`, `traces`; default: the tracker\'s)' -r -f -a "never\t'Nobody\'s'
learned\t'A player\'s once seen resting a piece on its way'
always\t'Everybody\'s, from the first move'"
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l keep-failures -d 'Write every trace not reconstructed exactly to this folder, with its truth beside it (`NAME.trace`, `NAME.json`), to replay and debug' -r -F
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l verbose -d 'Print every game that is not reconstructed exactly (`laws`: every observation missed and every false report)'
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "demo" -d 'Play a real game on an emulated board through the serial path, showing each event'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "replay" -d 'Replay a recorded trace and print what eboardd decides, as JSON lines'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "run" -d 'Run the daemon: boards on their ports, games journalled, the D-Bus service'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "watch" -d 'Follow the running daemon\'s boards over D-Bus (or every host\'s over MQTT)'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "relay" -d 'Broadcast the boards of many hosts, followed through an MQTT broker: PGN files, HTTP and the lichess push, in tournament board order'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "uci" -d 'Be a UCI engine for chess GUIs: the bestmove is the move made on the board'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "list" -d 'Probe the serial ports and say which have boards on them'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "record" -d 'Record a board\'s traffic to a trace file while printing what it decodes'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "sim" -d 'Play a game with the simulated hand on an emulated board and write the trace'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "emulate" -d 'Put an emulated board on a pseudo-terminal for other programs: played live by the simulated hand (carrying out the moves shown on it), or replaying a trace'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "bench" -d 'Measure throughput and print the figures'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from demo replay run watch relay uci list record sim emulate bench help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
