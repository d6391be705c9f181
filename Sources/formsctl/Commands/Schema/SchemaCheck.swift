import ArgumentParser
import FormsCore
import FormsStore

extension Formsctl.Schema {
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Check every descriptor: keys, types, patterns, defaults, cycles, relations, expressions.",
      discussion: """
        Exit 1 when any problem is found; each is printed as schemas/<kind>/<version>.yaml:LINE:COL: error: message.

        Examples:
          formsctl schema check
        """
    )
    @OptionGroup var options: StoreOptions
    @Option(help: "Output: text, json or github.") var format: DiagnosticPrinter.Format = .text

    func run() throws {
      let (_, registry) = try Formsctl.Schema.load(options)
      render(registry.diagnostics, as: format, to: .standardOutput)
      let count = registry.schemas.values.map(\.count).reduce(0, +)
      if !options.quiet && format != .json {
        printOut(
          "checked the descriptors of \(registry.kinds.count) kinds (\(count) versions compiled): \(registry.diagnostics.count) problem(s)"
        )
      }
      if !registry.diagnostics.isEmpty { throw ExitStatus.problems }
    }
  }
}
