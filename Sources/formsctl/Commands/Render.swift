import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsPages
import FormsStore
import Foundation

extension Formsctl {
  struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "render",
      abstract: "Write a document's print view: HTML, or PDF through a headless Chromium.",
      discussion: """
        The print view is the form as a computer-generated form (FAR 53.105): the form's number, title and edition (the document's revision) at the head, then every data element in the descriptor's order, numbered, line items as a table. It is the page `formsctl serve` prints. Sealed values are shown where your identity opens them, recorded in the audit log as `get` records them.

        HTML goes to standard output or --output; PDF needs --output and a Chromium (chromium, chromium-browser or google-chrome on PATH, or FORMSCTL_CHROMIUM naming one), which prints the HTML headless.

        Examples:
          formsctl render form 1981a09e --format html > sf30.html
          formsctl render form 1981a09e --format pdf --output sf30.pdf
        """)
    enum Format: String, ExpressibleByArgument, CaseIterable { case html, pdf }

    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or its first 4 characters or more).") var id: String
    @Option(help: "html or pdf.") var format: Format = .html
    @Option(help: ArgumentHelp("Write here instead of standard output (required for pdf).", valueName: "FILE"))
    var output: String?

    func validate() throws {
      if format == .pdf && output == nil { throw ValidationError("--format pdf writes a file: add --output FILE.pdf") }
    }

    func run() throws {
      let store = try options.open()
      // Never into the store's data (a document's own file), its schemas or git's files.
      if let output { try store.layout.checkOutput(output) }
      let html = try PrintView.render(store: store, kind: kind, id: try store.expand(kind: kind, id: id))
      switch (format, output) {
      case (.html, nil): FileHandleOutput.standardOutput.write(html)
      case (.html, let output?): try PDFPrinter.write(Array(html.utf8), to: output)
      case (.pdf, let output?): try PDFPrinter.print(html: html, to: output, workingIn: Self.workingDirectory(store))
      case (.pdf, nil): throw CommandError.usage("--format pdf writes a file: add --output FILE.pdf")
      }
    }

    /// Where the PDF printer makes its private directory: the store's own `.formsctl` when it is
    /// a directory this user may write (not a link), else the system's temporary directory (a
    /// store read from a read-only place, or a clone that has never been written).
    static func workingDirectory(_ store: Store) -> String {
      let state = store.layout.stateDirectory
      var info = stat()
      if lstat(state, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(state, W_OK | X_OK) == 0 { return state }
      return NSTemporaryDirectory().hasSuffix("/") ? String(NSTemporaryDirectory().dropLast()) : NSTemporaryDirectory()
    }
  }
}
