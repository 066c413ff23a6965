// SPDX-License-Identifier: MIT
#include "widgets/strategy/paramform.h"
#include "widgets/models/qtext.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>
#include <cmath>

namespace cl::gui {

using strategy::ParamSpec;

namespace {

bool bounded(const ParamSpec &s)
{
    return s.min != s.max;
}

// Lists are typed as "a, b, c"; empty items are dropped so a trailing comma is harmless.
nlohmann::json splitList(const QString &text)
{
    nlohmann::json out = nlohmann::json::array();
    const QStringList items = text.split(QLatin1Char(','));
    for (const QString &item : items) {
        const QString t = item.trimmed();
        if (!t.isEmpty())
            out.push_back(t.toStdString());
    }
    return out;
}

QString joinList(const nlohmann::json &v)
{
    if (v.is_string())
        return qs(v.get_ref<const std::string &>());
    QStringList items;
    if (v.is_array())
        for (const auto &e : v)
            if (e.is_string())
                items << qs(e.get_ref<const std::string &>());
    return items.join(QStringLiteral(", "));
}

// Numbers may arrive as JSON numbers or as strings typed on a command line.
bool toNumber(const nlohmann::json &v, double *out)
{
    if (v.is_number()) {
        *out = v.get<double>();
        return true;
    }
    if (v.is_string()) {
        bool ok = false;
        *out = qs(v.get_ref<const std::string &>()).trimmed().toDouble(&ok);
        return ok;
    }
    return false;
}

bool toBool(const nlohmann::json &v, bool *out)
{
    if (v.is_boolean()) {
        *out = v.get<bool>();
        return true;
    }
    if (v.is_string()) {
        const QString s = qs(v.get_ref<const std::string &>()).trimmed().toLower();
        if (s == QLatin1String("true") || s == QLatin1String("1") || s == QLatin1String("yes")) {
            *out = true;
            return true;
        }
        if (s == QLatin1String("false") || s == QLatin1String("0") || s == QLatin1String("no")) {
            *out = false;
            return true;
        }
    }
    return false;
}

} // namespace

ParamForm::ParamForm(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_empty = new QLabel(tr("This strategy has no parameters."), this);
    m_empty->setEnabled(false);
    layout->addWidget(m_empty);
    m_fields = new QWidget(this);
    m_form = new QFormLayout(m_fields);
    m_form->setContentsMargins(0, 0, 0, 0);
    m_form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addWidget(m_fields);
    m_reset = new QPushButton(tr("Reset to defaults"), this);
    m_reset->setToolTip(tr("Every parameter back to the value the seed or peer document gives"));
    connect(m_reset, &QPushButton::clicked, this, &ParamForm::resetToDefaults);
    auto *row = new QHBoxLayout;
    row->addStretch(1);
    row->addWidget(m_reset);
    layout->addLayout(row);
    setSpecs({});
}

void ParamForm::setSpecs(std::vector<ParamSpec> specs)
{
    while (m_form->rowCount() > 0)
        m_form->removeRow(0); // deletes the label and the editor
    m_editors.clear();
    m_specs = std::move(specs);
    for (const ParamSpec &spec : m_specs) {
        QWidget *w = makeEditor(spec);
        w->setObjectName(qs(spec.name));
        w->setToolTip(qs(spec.help));
        auto *label = new QLabel(qs(spec.name), m_fields);
        label->setToolTip(qs(spec.help));
        label->setBuddy(w);
        m_form->addRow(label, w);
        m_editors.push_back(w);
    }
    m_empty->setVisible(m_specs.empty());
    m_fields->setVisible(!m_specs.empty());
    m_reset->setEnabled(!m_specs.empty());
    resetToDefaults();
}

QWidget *ParamForm::makeEditor(const ParamSpec &spec)
{
    const auto changed = [this] {
        if (!m_silent)
            Q_EMIT valuesChanged();
    };
    switch (spec.type) {
    case ParamSpec::Type::Int: {
        auto *w = new QSpinBox(m_fields);
        // QSpinBox holds an int; int64 ranges beyond it are clamped (no seed uses one).
        const double lo = bounded(spec) ? std::max<double>(spec.min, INT_MIN) : INT_MIN;
        const double hi = bounded(spec) ? std::min<double>(spec.max, INT_MAX) : INT_MAX;
        w->setRange(static_cast<int>(lo), static_cast<int>(hi));
        w->setGroupSeparatorShown(true);
        w->setAccelerated(true);
        connect(w, &QSpinBox::valueChanged, this, changed);
        return w;
    }
    case ParamSpec::Type::Double: {
        auto *w = new QDoubleSpinBox(m_fields);
        // As many decimals as the default needs (up to 4), at least 3 for shares: "0.500", not "0.5000".
        int decimals = bounded(spec) && spec.max - spec.min <= 1.0 ? 3 : 2;
        const double d = spec.defaultValue.is_number() ? spec.defaultValue.get<double>() : 0.0;
        while (decimals < 4 && std::abs(d * std::pow(10.0, decimals) - std::round(d * std::pow(10.0, decimals))) > 1e-9)
            ++decimals;
        w->setDecimals(decimals);
        w->setRange(bounded(spec) ? spec.min : -1e12, bounded(spec) ? spec.max : 1e12);
        // Shares and thresholds (0..1) step by 0.05, token counts and the like by 1.
        w->setSingleStep(bounded(spec) && spec.max - spec.min <= 1.0 ? 0.05 : 1.0);
        w->setAccelerated(true);
        connect(w, &QDoubleSpinBox::valueChanged, this, changed);
        return w;
    }
    case ParamSpec::Type::Bool: {
        auto *w = new QCheckBox(m_fields);
        connect(w, &QCheckBox::toggled, this, changed);
        return w;
    }
    case ParamSpec::Type::String: {
        auto *w = new QLineEdit(m_fields);
        w->setClearButtonEnabled(true);
        connect(w, &QLineEdit::textChanged, this, changed);
        return w;
    }
    case ParamSpec::Type::StringList: {
        auto *w = new QLineEdit(m_fields);
        w->setPlaceholderText(tr("comma-separated"));
        w->setClearButtonEnabled(true);
        connect(w, &QLineEdit::textChanged, this, changed);
        return w;
    }
    case ParamSpec::Type::Choice: {
        auto *w = new QComboBox(m_fields);
        for (const std::string &c : spec.choices)
            w->addItem(qs(c));
        connect(w, &QComboBox::currentIndexChanged, this, changed);
        return w;
    }
    }
    return new QWidget(m_fields);
}

bool ParamForm::setEditorValue(std::size_t k, const nlohmann::json &value)
{
    const ParamSpec &spec = m_specs[k];
    QWidget *w = m_editors[k];
    switch (spec.type) {
    case ParamSpec::Type::Int: {
        auto *box = static_cast<QSpinBox *>(w);
        double d = 0;
        if (!toNumber(value, &d) || std::floor(d) != d || d < box->minimum() || d > box->maximum())
            return false;
        box->setValue(static_cast<int>(d));
        return true;
    }
    case ParamSpec::Type::Double: {
        auto *box = static_cast<QDoubleSpinBox *>(w);
        double d = 0;
        if (!toNumber(value, &d) || !std::isfinite(d) || d < box->minimum() || d > box->maximum())
            return false;
        box->setValue(d);
        return true;
    }
    case ParamSpec::Type::Bool: {
        bool b = false;
        if (!toBool(value, &b))
            return false;
        static_cast<QCheckBox *>(w)->setChecked(b);
        return true;
    }
    case ParamSpec::Type::String:
        if (!value.is_string() && !value.is_null())
            return false;
        static_cast<QLineEdit *>(w)->setText(value.is_string() ? qs(value.get_ref<const std::string &>()) : QString());
        return true;
    case ParamSpec::Type::StringList:
        if (!value.is_array() && !value.is_string() && !value.is_null())
            return false;
        static_cast<QLineEdit *>(w)->setText(joinList(value));
        return true;
    case ParamSpec::Type::Choice: {
        if (!value.is_string())
            return false;
        auto *box = static_cast<QComboBox *>(w);
        const int i = box->findText(qs(value.get_ref<const std::string &>()));
        if (i < 0)
            return false;
        box->setCurrentIndex(i);
        return true;
    }
    }
    return false;
}

nlohmann::json ParamForm::values() const
{
    nlohmann::json out = nlohmann::json::object();
    for (std::size_t k = 0; k < m_specs.size(); ++k) {
        const ParamSpec &spec = m_specs[k];
        QWidget *w = m_editors[k];
        switch (spec.type) {
        case ParamSpec::Type::Int: out[spec.name] = static_cast<std::int64_t>(static_cast<QSpinBox *>(w)->value()); break;
        case ParamSpec::Type::Double: out[spec.name] = static_cast<QDoubleSpinBox *>(w)->value(); break;
        case ParamSpec::Type::Bool: out[spec.name] = static_cast<QCheckBox *>(w)->isChecked(); break;
        case ParamSpec::Type::String: out[spec.name] = static_cast<QLineEdit *>(w)->text().toStdString(); break;
        case ParamSpec::Type::StringList: out[spec.name] = splitList(static_cast<QLineEdit *>(w)->text()); break;
        case ParamSpec::Type::Choice: out[spec.name] = static_cast<QComboBox *>(w)->currentText().toStdString(); break;
        }
    }
    return out;
}

bool ParamForm::setValues(const nlohmann::json &values, QString *error)
{
    if (!values.is_object()) {
        if (error)
            *error = tr("parameters must be an object");
        return false;
    }
    QStringList problems;
    m_silent = true;
    for (const auto &[name, value] : values.items()) {
        std::size_t k = 0;
        while (k < m_specs.size() && m_specs[k].name != name)
            ++k;
        if (k == m_specs.size())
            problems << tr("unknown parameter %1").arg(qs(name));
        else if (!setEditorValue(k, value))
            problems << tr("%1: invalid value %2").arg(qs(name), qs(value.dump()));
    }
    m_silent = false;
    Q_EMIT valuesChanged();
    if (error)
        *error = problems.join(QStringLiteral("; "));
    return problems.isEmpty();
}

void ParamForm::resetToDefaults()
{
    m_silent = true;
    for (std::size_t k = 0; k < m_specs.size(); ++k)
        if (!setEditorValue(k, m_specs[k].defaultValue) && m_specs[k].type == ParamSpec::Type::Choice)
            static_cast<QComboBox *>(m_editors[k])->setCurrentIndex(0);
    m_silent = false;
    Q_EMIT valuesChanged();
}

QWidget *ParamForm::editor(const QString &name) const
{
    for (std::size_t k = 0; k < m_specs.size(); ++k)
        if (qs(m_specs[k].name) == name)
            return m_editors[k];
    return nullptr;
}

} // namespace cl::gui
