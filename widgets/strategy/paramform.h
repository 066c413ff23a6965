// SPDX-License-Identifier: MIT
#pragma once

// A form for a strategy's parameters, built from its ParamSpec list (the CLI builds its flags from
// the same specs): spin box for Int (range), double spin box for Double, check box for Bool, line
// edit for String, comma-separated line edit for StringList, combo box for Choice. The help text is
// each editor's tooltip. values() gives typed JSON that strategy::resolveParams accepts.

#include "core/strategy/strategy.h"

#include <QWidget>

#include <nlohmann/json.hpp>

#include <vector>

class QFormLayout;
class QLabel;
class QPushButton;

namespace cl::gui {

class ParamForm : public QWidget
{
    Q_OBJECT
public:
    explicit ParamForm(QWidget *parent = nullptr);

    // Rebuilds the editors; every value starts at its default.
    void setSpecs(std::vector<cl::strategy::ParamSpec> specs);
    const std::vector<cl::strategy::ParamSpec> &specs() const { return m_specs; }

    // {name: value} for every spec: integer, number, bool, string, array of strings, or the choice.
    nlohmann::json values() const;
    // Sets the named editors (numbers may also come as strings, lists as "a,b" strings). Unknown
    // names and values an editor cannot hold are errors (the rest is still applied).
    bool setValues(const nlohmann::json &values, QString *error = nullptr);

    QWidget *editor(const QString &name) const; // for tests and for focusing a field

public Q_SLOTS:
    void resetToDefaults();

Q_SIGNALS:
    void valuesChanged();

private:
    QWidget *makeEditor(const cl::strategy::ParamSpec &spec);
    bool setEditorValue(std::size_t k, const nlohmann::json &value);

    std::vector<cl::strategy::ParamSpec> m_specs;
    std::vector<QWidget *> m_editors; // parallel to m_specs
    QWidget *m_fields = nullptr;
    QFormLayout *m_form = nullptr;
    QLabel *m_empty = nullptr;
    QPushButton *m_reset = nullptr;
    bool m_silent = false; // no valuesChanged while the form sets values itself
};

} // namespace cl::gui
