import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "graph",
      abstract: "Print a Mermaid entity-relationship diagram of the kinds and their relations.",
      discussion: """
        Examples:
          formsctl schema graph > relations.mmd
        """)
    @OptionGroup var options: StoreOptions

    func run() throws {
      let (_, registry) = try Formsctl.Schema.load(options)
      FileHandleOutput.standardOutput.write(MermaidGraph.render(registry.kinds.compactMap { registry.latest($0) }))
    }
  }
}
