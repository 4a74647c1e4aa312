# fish completion for cxlvctl. Install:
#   cxlvctl completion fish > ~/.config/fish/completions/cxlvctl.fish
# Candidates come from `cxlvctl __complete WORDS...` (commands, flags and
# live names read from sysfs), a tab and a one-line description after
# commands and flags, which fish shows beside them.
function __cxlvctl_complete
    set -l words (commandline -opc) (commandline -ct)
    $words[1] __complete $words[2..-1] 2>/dev/null
end
complete -c cxlvctl -f -a '(__cxlvctl_complete)'
