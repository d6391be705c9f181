import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Editor: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "editor",
      abstract: "Make editors complete and check documents while they are typed.",
      discussion: """
        Examples:
          formsctl editor setup
          formsctl editor setup --editor neovim --print
        """,
      subcommands: [Setup.self]
    )

  }
}
