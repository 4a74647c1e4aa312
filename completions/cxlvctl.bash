# bash completion for cxlvctl. Install:
#   cxlvctl completion bash > /etc/bash_completion.d/cxlvctl
# Every candidate (commands, flags, live device/memdev/decoder/region/
# namespace names) comes from `cxlvctl __complete WORDS...`, which reads
# sysfs, so the script itself knows nothing about cxlvctl.
_cxlvctl() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local IFS=$'\n'
	local candidates
	candidates=$("${COMP_WORDS[0]}" __complete "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	mapfile -t COMPREPLY < <(compgen -W "$candidates" -- "$cur")
}
complete -o default -F _cxlvctl cxlvctl
