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
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "replay" -d 'Replay a recorded trace and print what eboardd decides, as JSON lines'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "run" -d 'Run the daemon: boards on their ports, games journalled, the D-Bus service'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "watch" -d 'Follow the running daemon\'s boards over D-Bus'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "list" -d 'Probe the serial ports and say which have boards on them'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "bench" -d 'Record a board\'s traffic to a trace file while printing what it decodes. Measure throughput and print the figures'
complete -c eboardd -n "__fish_eboardd_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -l format -d 'What to print' -r -f -a "jsonl\t'The game events as JSON lines (the contract)'
pgn\t'The game as PGN'
uci\t'One confirmed move per line in UCI notation, as the game ends up'
sensors\t'Every decoded message and square change with its time (debugging)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand replay" -l laws -d 'The edition of the FIDE Laws the arbiter applies' -r -f -a "fide-2023\t''
fide-2014\t''
fide-classic\t''"
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
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l session -d 'Serve on the user\'s session bus (the default)'
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -l system -d 'Serve on the system bus (the systemd service)'
complete -c eboardd -n "__fish_eboardd_using_subcommand run" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l board -d 'Only this board: its number (as in /org/eboardd/EBoard1/Board/N) or its device path' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l format -d 'What to print' -r -f -a "jsonl\t'Every event as a contract JSON line; with several boards each line gets `"board":N`'
uci\t'A UCI `position` command each time a game changes (pipe it into an engine)'"
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l bus-address -d 'Follow the daemon on the bus at this D-Bus address' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -l system -d 'Follow the daemon on the system bus (default: the session bus)'
complete -c eboardd -n "__fish_eboardd_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand list" -s h -l help -d 'Print help'
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -l megabytes -d 'How many megabytes of stream to decode per protocol (`codec`)' -r
complete -c eboardd -n "__fish_eboardd_using_subcommand bench" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "replay" -d 'Replay a recorded trace and print what eboardd decides, as JSON lines'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "run" -d 'Run the daemon: boards on their ports, games journalled, the D-Bus service'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "watch" -d 'Follow the running daemon\'s boards over D-Bus'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "list" -d 'Probe the serial ports and say which have boards on them'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "bench" -d 'Record a board\'s traffic to a trace file while printing what it decodes. Measure throughput and print the figures'
complete -c eboardd -n "__fish_eboardd_using_subcommand help; and not __fish_seen_subcommand_from replay run watch list bench help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
