/** `completion bash|zsh|fish`: a shell completion script for the commands and their flags (bin/lib/completion.ts). */
import { ValidationError } from "../../shared/errors.ts";
import { commandFile, commandNames, programName } from "../lib/commands.ts";
import { completionScript, completionTree, SHELLS, type Shell } from "../lib/completion.ts";
import { defineCommand } from "../lib/define-command.ts";

const help = `usage: npm run --silent cli -- completion bash|zsh|fish

Prints a completion script for the commands and their flags, generated from the commands' own
flag definitions. Load it once per shell, or better, write it to a file once:
  bash:  helm-status completion bash > ~/.local/share/bash-completion/completions/helm-status
  zsh:   helm-status completion zsh > "\${fpath[1]}/_helm-status"   (or: source <(helm-status completion zsh))
  fish:  helm-status completion fish > ~/.config/fish/completions/helm-status.fish
`;

export const run = defineCommand({
  help,
  options: {},
  positionals: true,
  verbs: SHELLS,
  async run({ positionals }, io) {
    const [shell, ...extra] = positionals;
    if (!SHELLS.includes(shell as Shell) || extra.length > 0) {
      throw new ValidationError(
        `completion needs one shell: ${SHELLS.join(", ")}${shell ? ` (not ${JSON.stringify(positionals.join(" "))})` : ""}`,
        "InvalidArguments",
      );
    }
    const tree = await completionTree(commandNames(), (name) => import(commandFile(name)!));
    // The command a user types: `helm-status` (npm run cannot be completed by name).
    const program = programName(io.env).startsWith("npm ") ? "helm-status" : programName(io.env);
    io.stdout.write(completionScript(shell as Shell, program, tree));
    return 0;
  },
});
