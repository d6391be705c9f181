import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "schema",
      abstract: "List, show, check and export the schema descriptors.",
      discussion: """
        Examples:
          formsctl schema list
          formsctl schema show purchase-order
          formsctl schema check
        """,
      subcommands: [List.self, Show.self, Check.self, Export.self, Graph.self]
    )

    /// The store and its compiled descriptors.
    static func load(_ options: StoreOptions) throws -> (StoreLayout, SchemaRegistry) {
      let layout = try options.locate()
      let display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
      return (layout, try SchemaRegistry.load(directory: layout.schemasDirectory, display: display))
    }

  }
}
