import ArgumentParser
import FormsStore

/// What `set` and `status` print: the written path, or the document.
package enum WriteOutput: String, ExpressibleByArgument, CaseIterable { case path, json }

/// What `new` prints: the id every next command wants, the path, or the document.
package enum NewOutput: String, ExpressibleByArgument, CaseIterable { case id, path, json }

/// Text for people, or one JSON object for scripts.
package enum TextOrJSON: String, ExpressibleByArgument, CaseIterable { case text, json }

/// A table for people, JSON for scripts, or plain text.
package enum TableOrJSON: String, ExpressibleByArgument, CaseIterable { case table, json, text }

/// Prints a written document's path, or the document itself.
package func printWritten(_ document: Store.Document, format: WriteOutput, store: Store) {
  switch format {
  case .path: printOut(store.display(document.path))
  case .json: FileHandleOutput.standardOutput.write(String(decoding: document.bytes, as: UTF8.self))
  }
}
