# bash completion for cxlvctl. Install:
#   cxlvctl completion bash > /etc/bash_completion.d/cxlvctl
# Every candidate (commands, flags, live device/memdev/decoder/region/
# namespace names) comes from `cxlvctl __complete WORDS...`, which reads
# sysfs, so the script itself knows nothing about cxlvctl.
_cxlvctl() {
	local IFS=$'\n' i w words=() candidates
	# bash splits --flag=value at '=' (COMP_WORDBREAKS): join the words back
	# for __complete, and reply with what follows the '=', the part bash
	# replaces.
	for ((i = 1; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if ((${#words[@]})) && [[ $w == = || ${COMP_WORDS[i - 1]} == = ]]; then
			words[-1]+=$w
		else
			words+=("$w")
		fi
	done
	local cur=${words[-1]} lead=
	[[ $cur == -*=* ]] && lead=${cur%%=*}=
	# Descriptions follow a tab; bash shows none.
	candidates=$("${COMP_WORDS[0]}" __complete "${words[@]}" 2>/dev/null | cut -f1)
	candidates=${candidates//"$lead"/}
	mapfile -t COMPREPLY < <(compgen -W "$candidates" -- "${cur#"$lead"}")
}
complete -o default -F _cxlvctl cxlvctl
