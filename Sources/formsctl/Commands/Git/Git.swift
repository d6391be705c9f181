import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore
import Foundation

extension Formsctl {

  struct Git: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "git",
      abstract: "Git integration.",
      discussion: """
        Examples:
          formsctl git install
          formsctl git install --uninstall
        """,
      subcommands: [Install.self]
    )

  }
}
