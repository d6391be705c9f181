import ArgumentParser
import FormsCommandLine
import FormsStore

extension Formsctl {
  struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "init",
      abstract: "Create a new store: manifest, built-in schemas, data/, .formsctl/ and a .gitignore.",
      discussion: """
        Refuses a directory that already holds a store (formsctl.yaml) or lies inside one. Never overwrites a file: in a directory that has some of what init writes (schemas/ from another store, a .gitignore), init adds only what is missing and names the files it kept that differ from the built-ins. Nothing is written through a symbolic link: a link where init would write refuses the whole init before its first file. The schemas are built into formsctl.

        Examples:
          formsctl init ../new-store
          formsctl init ../other-store && formsctl validate --store ../other-store
        """
    )
    @Argument(help: "The directory for the new store.") var directory: String = "."

    func run() throws {
      let initialized = try Store.initialize(at: directory)
      let shown = PathDisplay(workingDirectory: FileIO.currentDirectory).show(initialized.layout.root)
      printOut("initialized a formsctl store in \(shown)")
      if !initialized.kept.isEmpty {
        printWarning(
          "kept as they were, differing from the built-ins (init never overwrites): "
            + initialized.kept.joined(separator: ", "))
      }
    }
  }

}
