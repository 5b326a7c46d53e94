<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>CanvasStyle</name>
    <message>
        <source>NVLink</source>
        <translation>NVLink</translation>
    </message>
    <message>
        <source>PCIe</source>
        <translation>PCIe</translation>
    </message>
    <message>
        <source>Ethernet</source>
        <translation>以太网</translation>
    </message>
    <message>
        <source>InfiniBand</source>
        <translation>InfiniBand</translation>
    </message>
    <message>
        <source>RoCE</source>
        <translation>RoCE</translation>
    </message>
    <message>
        <source>Eth</source>
        <comment>NIC badge</comment>
        <translation>以太</translation>
    </message>
    <message>
        <source>IB</source>
        <comment>NIC badge</comment>
        <translation>IB</translation>
    </message>
    <message>
        <source>RoCE</source>
        <comment>NIC badge</comment>
        <translation>RoCE</translation>
    </message>
    <message>
        <source>%1 GB/s</source>
        <extracomment>Bandwidth label; %1 is a number in 1e9 bytes per second.</extracomment>
        <translation>%1 GB/s</translation>
    </message>
    <message>
        <source>%1 µs</source>
        <extracomment>Latency label; %1 is a number of microseconds.</extracomment>
        <translation>%1 微秒</translation>
    </message>
    <message>
        <source>%1 · %2</source>
        <translation>%1 · %2</translation>
    </message>
    <message>
        <source>%1 ↔ %2
%3, %4, %5</source>
        <translation>%1 ↔ %2
%3，%4，%5</translation>
    </message>
    <message>
        <source>%1× %2</source>
        <extracomment>GPUs of a machine on the canvas: %1 is the count, %2 the GPU type.</extracomment>
        <translation>%1× %2</translation>
    </message>
    <message>
        <source>Switch %1</source>
        <translation>交换机 %1</translation>
    </message>
    <message>
        <source>%1×</source>
        <extracomment>A ratio; %1 is a number.</extracomment>
        <translation>%1×</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>slow by %1</source>
        <translation>慢 %1</translation>
    </message>
    <message>
        <source>hung</source>
        <translation>挂起</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>Pre-flight: %1</source>
        <translation>预检：%1</translation>
    </message>
    <message>
        <source>%1: ok</source>
        <translation>%1：正常</translation>
    </message>
    <message>
        <source>%1: slow by %2 (%3 achieved, %4 assumed)</source>
        <translation>%1：慢 %2（实测 %3，假设 %4）</translation>
    </message>
    <message>
        <source>%1: hung: %2</source>
        <translation>%1：挂起：%2</translation>
    </message>
    <message>
        <source>%1: failed: %2</source>
        <translation>%1：失败：%2</translation>
    </message>
</context>
<context>
    <name>MachineTemplates</name>
    <message>
        <source>%1× %2 %3</source>
        <extracomment>Palette entry: %1 GPU count, %2 GPU model, %3 link kind, e.g. &quot;8× H100 NVLink&quot;.</extracomment>
        <translation>%1× %2 %3</translation>
    </message>
    <message>
        <source>%1: %2 TFLOPS, %3 GiB each; %4 %5 between GPUs</source>
        <translation>%1：每块 %2 TFLOPS、%3 GiB；GPU 间 %4 %5</translation>
    </message>
    <message>
        <source>Custom machine</source>
        <translation>自定义机器</translation>
    </message>
    <message>
        <source>A machine of a GPU type you describe: set its TFLOPS, memory and bandwidth in the inspector</source>
        <translation>使用自定义 GPU 型号的机器：在检查器中设置其 TFLOPS、显存和带宽</translation>
    </message>
    <message>
        <source>Switch</source>
        <translation>交换机</translation>
    </message>
    <message>
        <source>A network switch: link machines to it to share one fabric</source>
        <translation>网络交换机：将机器连接到它以共享同一网络</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ClusterScene</name>
    <message>
        <source>Move</source>
        <translation>移动</translation>
    </message>
    <message>
        <source>Click the machine or switch to link to (Esc cancels)</source>
        <translation>点击要连接到的机器或交换机（Esc 取消）</translation>
    </message>
    <message>
        <source>No link drawn: release it over another machine or switch</source>
        <translation>未创建链路：请在另一台机器或交换机上松开</translation>
    </message>
    <message>
        <source>Link tool: drag from one machine or switch to another, or click one and then the other (Esc leaves the tool)</source>
        <translation>链路工具：从一台机器或交换机拖到另一台，或先后点击两者（Esc 退出该工具）</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::ClusterView</name>
    <message>
        <source>Drag a machine from the palette to start</source>
        <translation>从组件面板拖入一台机器即可开始</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <source>&amp;Fit to Window</source>
        <translation>适应窗口(&amp;F)</translation>
    </message>
    <message>
        <source>Auto &amp;Layout</source>
        <translation>自动布局(&amp;L)</translation>
    </message>
    <message>
        <source>Cu&amp;t</source>
        <translation>剪切(&amp;T)</translation>
    </message>
    <message>
        <source>&amp;Copy</source>
        <translation>复制(&amp;C)</translation>
    </message>
    <message>
        <source>&amp;Paste</source>
        <translation>粘贴(&amp;P)</translation>
    </message>
    <message>
        <source>&amp;Duplicate</source>
        <translation>创建副本(&amp;D)</translation>
    </message>
    <message>
        <source>Add &amp;Copies…</source>
        <translation>添加多个副本(&amp;C)…</translation>
    </message>
    <message>
        <source>De&amp;lete</source>
        <translation>删除(&amp;L)</translation>
    </message>
    <message>
        <source>Select &amp;All</source>
        <translation>全选(&amp;A)</translation>
    </message>
    <message>
        <source>Add Copies</source>
        <translation>添加多个副本</translation>
    </message>
    <message>
        <source>Copies of the selection to add:</source>
        <translation>要添加的所选项副本数：</translation>
    </message>
    <message>
        <source>&amp;Link Tool</source>
        <translation>链路工具(&amp;L)</translation>
    </message>
    <message>
        <source>Link tool (L): drag from one machine to another, or click both</source>
        <translation>链路工具 (L)：从一台机器拖到另一台，或先后点击两者</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::Inspector</name>
    <message>
        <source>Cluster name</source>
        <translation>集群名称</translation>
    </message>
    <message>
        <source>Machine</source>
        <translation>机器</translation>
    </message>
    <message>
        <source>Switch</source>
        <translation>交换机</translation>
    </message>
    <message>
        <source>Link</source>
        <translation>链路</translation>
    </message>
    <message>
        <source>Cluster</source>
        <translation>集群</translation>
    </message>
    <message>
        <source>Selection</source>
        <translation>所选项</translation>
    </message>
    <message numerus="yes">
        <source>%n machine(s)</source>
        <translation>
            <numerusform>%n 台机器</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n GPU(s)</source>
        <translation>
            <numerusform>%n 块 GPU</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n switch(es)</source>
        <translation>
            <numerusform>%n 台交换机</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n link(s)</source>
        <translation>
            <numerusform>%n 条链路</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hetplan::gui::LinkEditor</name>
    <message>
        <source>Joins</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Latency (µs)</source>
        <translation>延迟 (微秒)</translation>
    </message>
    <message>
        <source>%1 ↔ %2</source>
        <translation>%1 ↔ %2</translation>
    </message>
    <message>
        <source>Enter a number, e.g. 25 or 0.7.</source>
        <translation>请输入数字，例如 25 或 0.7。</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::MachineEditor</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU 数量</translation>
    </message>
    <message>
        <source>Custom GPU type</source>
        <translation>自定义 GPU 型号</translation>
    </message>
    <message>
        <source>TFLOPS</source>
        <translation>TFLOPS</translation>
    </message>
    <message>
        <source>Memory (GiB)</source>
        <translation>显存 (GiB)</translation>
    </message>
    <message>
        <source>Memory bandwidth (GB/s)</source>
        <translation>显存带宽 (GB/s)</translation>
    </message>
    <message>
        <source>user@host, for launching</source>
        <translation>user@host，用于启动任务</translation>
    </message>
    <message>
        <source>Link between GPUs</source>
        <translation>GPU 间互连</translation>
    </message>
    <message>
        <source>Bandwidth (GB/s)</source>
        <translation>带宽 (GB/s)</translation>
    </message>
    <message>
        <source>Latency (µs)</source>
        <translation>延迟 (微秒)</translation>
    </message>
    <message>
        <source>NIC</source>
        <translation>网卡</translation>
    </message>
    <message>
        <source>SSH host</source>
        <translation>SSH 主机</translation>
    </message>
    <message>
        <source>Enter a whole number of GPUs, e.g. 8.</source>
        <translation>请输入 GPU 的整数个数，例如 8。</translation>
    </message>
    <message>
        <source>%1 (custom)</source>
        <translation>%1（自定义）</translation>
    </message>
    <message>
        <source>New custom type…</source>
        <translation>新建自定义型号…</translation>
    </message>
    <message>
        <source>%1 TFLOPS, %2 GiB, %3 memory bandwidth per GPU</source>
        <translation>每块 GPU：%1 TFLOPS，%2 GiB，显存带宽 %3</translation>
    </message>
    <message>
        <source>Enter a number, e.g. 25 or 0.7.</source>
        <translation>请输入数字，例如 25 或 0.7。</translation>
    </message>
    <message>
        <source>New GPU Type</source>
        <translation>新建 GPU 型号</translation>
    </message>
    <message>
        <source>Name of the GPU type:</source>
        <translation>GPU 型号名称：</translation>
    </message>
    <message>
        <source>&quot;%1&quot; is already a GPU type; choose another name.</source>
        <translation>“%1”已是一个 GPU 型号，请换一个名称。</translation>
    </message>
    <message>
        <source>New GPU type %1</source>
        <translation>新建 GPU 型号 %1</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::MeasuredMark</name>
    <message>
        <source>Measured: %1</source>
        <translation>实测：%1</translation>
    </message>
    <message>
        <source>Measured: %1 — %2</source>
        <translation>实测：%1 — %2</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::Palette</name>
    <message>
        <source>Drag a machine or a switch onto the canvas</source>
        <translation>将机器或交换机拖到画布上</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::SwitchEditor</name>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Links</source>
        <translation>链路数</translation>
    </message>
</context>
<context>
    <name>hetplan::gui::VerdictLegend</name>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Draw the links by their kind again</source>
        <translation>重新按类型绘制链路</translation>
    </message>
    <message>
        <source>Links by the last pre-flight: %1 %2 %3 (hover a link for its checks)</source>
        <translation>链路按上次预检着色：%1 %2 %3（悬停链路查看其检查）</translation>
    </message>
    <message>
        <source>ok</source>
        <translation>正常</translation>
    </message>
    <message>
        <source>slow</source>
        <translation>慢</translation>
    </message>
    <message>
        <source>hung or failed</source>
        <translation>挂起或失败</translation>
    </message>
</context>
</TS>
