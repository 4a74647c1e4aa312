#compdef cxlvctl
# zsh completion for cxlvctl. Install:
#   cxlvctl completion zsh > "${fpath[1]}/_cxlvctl"
# Candidates come from `cxlvctl __complete WORDS...` (commands, flags and
# live names read from sysfs).
_cxlvctl() {
	local -a candidates
	candidates=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	compadd -- "${(@)candidates:#}"
}
if [[ $zsh_eval_context[-1] == loadautoload ]]; then
	_cxlvctl "$@"
else
	compdef _cxlvctl cxlvctl
fi
