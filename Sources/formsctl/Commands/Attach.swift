import ArgumentParser
import FormsCommandLine
import FormsCore
import FormsStore

extension Formsctl {
  struct Attach: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "attach",
      abstract: "Attach a file (a quote, a signed PDF, a receipt scan) to a document.",
      discussion: """
        The kind's descriptor declares the attachments a document may carry (attachments: in its descriptor: the media types, max_size, and the workflow states that require one). The file is kept in the store beside the data, at attachments/<directory>/<id>/<name>.<extension>, and named in the document's _attachments with its SHA-256, size and media type, in one journaled write with the document (its updated stamp, validation, the audit record). Attaching again replaces the file. The media type is told from the content and the file's name: a .pdf that is not a PDF, a type the attachment does not allow, a file larger than its max_size, a symbolic link or anything but a regular file is refused (exit 65), nothing written. `formsctl validate` reports a missing, extra or altered file at the document's _attachments; an approval signs the attachments' hashes with the content, so attaching another file voids signatures: refused (exit 65) unless --void-approvals (which ends a live review round; a document in the state a chain guards changes only as its descriptor's approvals on_change allows). A submission or an approval is refused while an attachment file is not the file its record names.

        Examples:
          formsctl attach purchase-order PO-000201 quote ../papers/quote-PO-000201.pdf
          formsctl get purchase-order PO-000201 --attachment quote > quote.pdf
          formsctl detach purchase-order PO-000201 quote
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Argument(help: "The attachment's name, as the descriptor declares it.") var name: String
    @Argument(help: "The file to attach.", completion: .file()) var file: String
    @Flag(help: "Attach even though that voids the signatures given (a round ends).") var voidApprovals = false

    func run() throws {
      let store = try options.open(toWrite: true)
      let document = try store.attach(
        kind: kind, id: try store.expand(kind: kind, id: id), name: name, file: file, voidingApprovals: voidApprovals)
      warnStale(document.staleApprovals.map { [$0] } ?? [])
      let record = document.value["_attachments"]?[name].flatMap(AttachmentRecord.init)
      printOut(
        "attached \(name) to \(kind) \(document.id)"
          + (record.map { ": \($0.type), \($0.size) bytes, sha256 \($0.sha256.prefix(12))…" } ?? ""))
    }
  }

  struct Detach: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "detach",
      abstract: "Remove an attachment from a document: its file and its record, in one write.",
      discussion: """
        Refused (exit 65) when the document's state requires the attachment (required_in: in the descriptor), and, unless --void-approvals, when it voids signatures. A snapshot or git still holds the file.

        Examples:
          formsctl attach purchase-order PO-000201 quote ../papers/quote-PO-000201.pdf
          formsctl detach purchase-order PO-000201 quote
        """
    )
    @OptionGroup var options: StoreOptions
    @Argument(help: "The kind.", completion: Completions.kinds) var kind: String
    @Argument(help: "The document's id (or a unique prefix of 4+ characters).", completion: Completions.ids) var id:
      String
    @Argument(help: "The attachment's name.") var name: String
    @Flag(help: "Detach even though that voids the signatures given (a round ends).") var voidApprovals = false

    func run() throws {
      let store = try options.open(toWrite: true)
      let document = try store.detach(
        kind: kind, id: try store.expand(kind: kind, id: id), name: name, voidingApprovals: voidApprovals)
      warnStale(document.staleApprovals.map { [$0] } ?? [])
      printOut("detached \(name) from \(kind) \(document.id)")
    }
  }
}
