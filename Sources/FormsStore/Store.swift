import FormsCore
