#compdef cxlvctl
# zsh completion for cxlvctl. Install:
#   cxlvctl completion zsh > "${fpath[1]}/_cxlvctl"
# Candidates come from `cxlvctl __complete WORDS...` (commands, flags and
# live names read from sysfs), each with an optional tab and a one-line
# description, shown beside it.
_cxlvctl() {
	local -a lines values shown
	local line
	lines=("${(@f)$(${words[1]} __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
	for line in "${(@)lines:#}"; do
		values+=("${line%%$'\t'*}")
		if [[ $line == *$'\t'* ]]; then
			shown+=("${line%%$'\t'*} -- ${line#*$'\t'}")
		else
			shown+=("$line")
		fi
	done
	compadd -l -d shown -- "${(@)values}"
}
if [[ $zsh_eval_context[-1] == loadautoload ]]; then
	_cxlvctl "$@"
else
	compdef _cxlvctl cxlvctl
fi
