import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Check every descriptor: keys, types, patterns, defaults, cycles, relations, expressions.",
      discussion: """
        Exit 1 when any problem is found; each is printed as schemas/<kind>/<version>.yaml:LINE:COL: error: message. The store's templates (templates/KIND/NAME.json) are checked too: each against its kind's newest version, its placeholders and missing required fields aside. So are the JSON Schemas `editor setup` exported into json-schema/, when there are any: a file that differs from what the descriptors export now is reported stale.

        Examples:
          formsctl schema check
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: text, json or github.") var format: DiagnosticPrinter.Format = .text

    func run() throws {
      let (layout, registry) = try Formsctl.Schema.load(options)
      let display = PathDisplay(workingDirectory: FileIO.currentDirectory).show
      let diagnostics =
        registry.diagnostics + (try Store.templateDiagnostics(layout: layout, registry: registry, display: display))
        + (try registry.staleJSONSchemas(in: layout.jsonSchemaDirectory, display: display))
      render(diagnostics, as: format, to: .standardOutput)
      let count = registry.schemas.values.map(\.count).reduce(0, +)
      if !options.quiet && format != .json {
        printOut(
          "checked the descriptors of \(registry.kinds.count) kinds (\(count) versions compiled): \(diagnostics.count) problem(s)"
        )
      }
      if !diagnostics.isEmpty { throw ExitStatus.problems }
    }
  }
}
